import Testing

@testable import MeasurementEvents

/// The one percent encoder and decoder that query parameters, hosted pages and the redactor share.
struct PercentEncodingTests {
    @Test(arguments: [
        ("plain-text_1.0~", "plain-text_1.0~"), ("a b&c=d", "a%20b%26c%3Dd"), ("100%+#", "100%25%2B%23"),
        ("é/", "%C3%A9%2F"), ("", ""),
    ])
    func encodeKeepsOnlyUnreservedCharactersByDefault(text: String, encoded: String) {
        #expect(PercentEncoding.encode(text) == encoded)
    }

    @Test func encodeKeepsTheBytesItIsTold() {
        #expect(
            PercentEncoding.encode("a/b c", keeping: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "a") })
                == "a/%62%20%63")
    }

    @Test(arguments: [
        ("a%20b%2bc", false, "a b+c"), ("a+b%26c", true, "a b&c"), ("a+b", false, "a+b"), ("%C3%A9", true, "é"),
        ("plain", true, "plain"),
    ])
    func decodeUndoesEscapesInEitherCase(text: String, plusAsSpace: Bool, decoded: String) {
        #expect(PercentEncoding.decode(text, plusAsSpace: plusAsSpace) == decoded)
        #expect(PercentEncoding.decodeLeniently(text, plusAsSpace: plusAsSpace) == decoded)
    }

    @Test(arguments: ["100%", "%4", "%zz", "%C3"])
    func decodeRefusesAMalformedEscapeOrBytesThatAreNotUTF8(text: String) {
        #expect(PercentEncoding.decode(text, plusAsSpace: true) == nil)
    }

    @Test func decodeLenientlyKeepsAMalformedEscapeAndReplacesBadUTF8() {
        #expect(PercentEncoding.decodeLeniently("100%", plusAsSpace: false) == "100%")
        #expect(PercentEncoding.decodeLeniently("%zz%41", plusAsSpace: false) == "%zzA")
        #expect(PercentEncoding.decodeLeniently("%C3", plusAsSpace: false) == "\u{FFFD}")
    }

    @Test func encodeThenDecodeGivesTheTextBack() {
        for text in ["a b&c=d+e", "é😀%", "~-._", ""] {
            #expect(PercentEncoding.decode(PercentEncoding.encode(text), plusAsSpace: true) == text)
        }
    }

    /// The redactor's decoding: every layer at once (`%2522` is `"`), over the bytes themselves, never failing.
    @Test(arguments: [
        ("a%2522b", "a\"b"), ("%252522", "\""), ("%41%2541", "AA"), ("100%", "100%"), ("%zz%4", "%zz%4"),
        ("no escape", "no escape"), ("%25", "%"), ("", ""),
    ])
    func decodeAllLayersInPlaceDecodesEveryLayerOverTheBytes(text: String, decoded: String) {
        var bytes = Array(text.utf8) + Array("tail".utf8)
        let count = text.utf8.count
        let length = bytes.withUnsafeMutableBufferPointer { PercentEncoding.decodeAllLayersInPlace($0, count: count) }
        #expect(Array(bytes[..<length]) == Array(decoded.utf8))
        #expect(Array(bytes.suffix(4)) == Array("tail".utf8), "the bytes after `count` are left alone")
    }

    @Test func escapeGivesTheByteOfEveryLayerAndTheEscapesLength() {
        let bytes = Array("x%2522%4".utf8)
        bytes.withUnsafeBufferPointer { buffer in
            #expect(PercentEncoding.escape(in: buffer, at: 1) == (UInt8(ascii: "\""), 5))
            #expect(PercentEncoding.escape(in: buffer, at: 6) == (UInt8(ascii: "%"), 1))
        }
    }
}
