import Testing

@testable import MeasurementEvents

/// The byte helpers the readers and the redactor share.
struct ASCIIBytesTests {
    /// The `memchr` search agrees with a plain search from every start, on a buffer with the byte at its ends,
    /// repeated, and absent, and on an empty buffer.
    @Test func firstIndexFromAStartAgreesWithAPlainSearch() {
        let samples: [[UInt8]] = [
            [], Array("\n".utf8), Array("a\nb\n\nc".utf8), Array("no newline here".utf8), Array("\nstarts".utf8),
            Array("ends\n".utf8),
        ]
        for sample in samples {
            sample.withUnsafeBufferPointer { bytes in
                for start in 0...(bytes.count + 1) {
                    let plain = start < bytes.count ? bytes[start...].firstIndex(of: 0x0A) ?? bytes.count : bytes.count
                    #expect(bytes.firstIndex(of: 0x0A, from: start) == plain, "\(sample) from \(start)")
                }
            }
        }
    }

    @Test func caseBlindComparisonFoldsOnlyASCIILetters() {
        #expect(Array("Content-Type".utf8).equalsIgnoringASCIICase(Array("content-type".utf8)))
        #expect(!Array("Content-Typ".utf8).equalsIgnoringASCIICase(Array("content-type".utf8)))
        #expect(!Array("É".utf8).equalsIgnoringASCIICase(Array("é".utf8)), "no folding beyond ASCII")
        #expect(UInt8(ascii: "[").asciiLowercased == UInt8(ascii: "["), "only A to Z move")
    }
}

/// `hasSameBytes(as:)` and `hashBytes(into:)`: byte equality of text, where `String`'s `==` is canonical
/// equivalence, and a hash to go with it.
struct SameBytesTests {
    @Test func textIsTheSameOnlyWhenItsBytesAre() {
        #expect("caf\u{E9}" == "cafe\u{301}")
        #expect(!"caf\u{E9}".hasSameBytes(as: "cafe\u{301}"))
        #expect("caf\u{E9}".hasSameBytes(as: "caf\u{E9}"))
        #expect("".hasSameBytes(as: ""))
        #expect(!"".hasSameBytes(as: "a"))
        let long = String(repeating: "ab", count: 40)
        #expect(long.hasSameBytes(as: String(repeating: "ab", count: 40)))
        #expect(!long.hasSameBytes(as: String(repeating: "ab", count: 39) + "ac"))
        #expect(String("xx" + long + "yy").dropFirst(2).dropLast(2).description.hasSameBytes(as: long))
        let none: String? = nil
        #expect(none.hasSameBytes(as: nil) && !none.hasSameBytes(as: "") && !Optional("").hasSameBytes(as: nil))
        #expect(Optional("caf\u{E9}").hasSameBytes(as: "caf\u{E9}"))
    }

    /// `containsBytes(_:)` finds a run of bytes anywhere, never a canonically equivalent spelling.
    @Test func textContainsBytesOnlyWhereTheyAre() {
        let extra = #"{"deferred":"1","slug":"invite"}"#
        #expect(extra.containsBytes(#""deferred":"1""#) && extra.containsBytes(#"invite"}"#))
        #expect(!extra.containsBytes(#""deferred":"0""#) && !#"{"deferred":"#.containsBytes(#""deferred":"1""#))
        #expect("".containsBytes("") && "a".containsBytes("") && !"".containsBytes("a"))
        #expect("cafe\u{301}".containsBytes("cafe") && !"caf\u{E9}".containsBytes("cafe\u{301}"))
        let long = String(repeating: "ab", count: 400) + "abc"
        #expect(long.containsBytes("babc") && !long.containsBytes("abcab"))
    }

    /// Equal bytes hash alike; the normalisations of a text hash apart (with `String`'s hash they all collide).
    @Test func textHashesByItsBytes() {
        func hash(_ text: String?) -> Int {
            var hasher = Hasher()
            text.hashBytes(into: &hasher)
            return hasher.finalize()
        }
        #expect(hash("caf\u{E9}") == hash("caf\u{E9}"))
        #expect(hash("caf\u{E9}") != hash("cafe\u{301}"))
        #expect("caf\u{E9}".hashValue == "cafe\u{301}".hashValue)
        #expect(hash(nil) != hash(""))
        // Ten accents, each in either form: 1,024 texts, all one to `String`, each its own hash here.
        let forms = (0..<1_024).map { mask in
            (0..<10).map { mask >> $0 & 1 == 0 ? "\u{E9}" : "e\u{301}" }.joined()
        }
        #expect(Set(forms.map { hash($0) }).count == 1_024)
        #expect(Set(forms).count == 1)
    }
}
