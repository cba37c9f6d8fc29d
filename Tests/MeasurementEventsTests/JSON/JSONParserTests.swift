import Testing

@testable import MeasurementEvents

struct JSONParserTests {
    @Test(arguments: [
        (
            #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
            JSONValue.object(["a": 1, "b": [true, false, nil], "c": ["d": "e"]])
        ),
        (#"  "x"  "#, .string("x")),
        (#"-0.5e2"#, .double(-50)),
        (#"9223372036854775807"#, .int(.max)),
        (#"9223372036854775808"#, .double(9_223_372_036_854_775_808)),
        (#""\u00e9\ud83d\ude00\n\"\\\/""#, .string("é😀\n\"\\/")),
        (#"{"k":1,"k":2}"#, .object(["k": 2])),
        (#"[]"#, .array([])),
        (#"{}"#, .object([:])),
    ])
    func readsValidJSON(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test(arguments: [
        "", "{", "}", "[1,]", "{\"a\"}", "{\"a\":}", "01", "1.", "-", "1e", "tru", "nul", "\"abc",
        "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "{\"a\":1}x", "[1 2]", "+1", ".5",
        "{'a':1}", "NaN",
    ])
    func rejectsMalformedJSONWithATypedError(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func rejectsNestingDeeperThanTheLimitInsteadOfOverflowingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: Never.self) { try JSONValue.parse(fine) }
    }

    @Test func rejectsInvalidUTF8InsideStrings() {
        let bytes: [UInt8] = [0x22, 0xFF, 0xFE, 0x22]
        #expect(throws: JSONParseError.self) {
            try bytes.withUnsafeBufferPointer { try JSONValue.parse(utf8: $0) }
        }
    }

    /// Strings are scanned eight bytes at a time until a word holds a quote, a backslash or a control character:
    /// each of those, and non-ASCII text, at every offset of the word (and in strings of every length around
    /// it), must read as a byte at a time would.
    @Test func readsEverySpecialByteAtEveryOffsetOfTheWordScan() throws {
        let specials: [(json: [UInt8], text: String?)] = [
            (Array(#"\""#.utf8), "\""), (Array(#"\\"#.utf8), "\\"), (Array(#"\n"#.utf8), "\n"),
            (Array(#"\u00e9"#.utf8), "é"), (Array("é".utf8), "é"), (Array("😀".utf8), "😀"), ([0x7F], "\u{7F}"),
            ([0x20], " "), ([0x1F], nil), ([0x00], nil), ([0x0A], nil), ([0xFF], nil), ([0xC3], nil),
        ]
        for length in 0..<34 {
            let plain = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            let plainText = String(decoding: plain, as: UTF8.self)
            let quoted = [0x22] + plain + [0x22]
            #expect(try quoted.withUnsafeBufferPointer { try JSONValue.parse(utf8: $0) } == .string(plainText))
            for offset in 0...length {
                for special in specials {
                    let json = [0x22] + plain[..<offset] + special.json + plain[offset...] + [0x22]
                    let parsed = try? json.withUnsafeBufferPointer { try JSONValue.parse(utf8: $0) }
                    let expected = special.text.map {
                        JSONValue.string(
                            String(decoding: plain[..<offset], as: UTF8.self) + $0
                                + String(decoding: plain[offset...], as: UTF8.self))
                    }
                    #expect(parsed == expected, "length \(length), offset \(offset), bytes \(special.json)")
                }
            }
        }
    }

    @Test func writesCompactJSONThatReadsBack() throws {
        let value: JSONValue = ["z": "quote \" and \\ and \n and \u{01}", "a": [1, 2.5, true, nil], "m": ["é": "😀"]]
        let text = value.jsonText()
        #expect(text.hasPrefix(#"{"z":"#))
        #expect(try JSONValue.parse(text) == value)
        #expect(value.jsonText(sortedKeys: true).hasPrefix(#"{"a":"#))
    }

    @Test func objectsKeepInsertionOrderAndReplaceInPlace() {
        var object: JSONObject = ["b": 1, "a": 2]
        object["b"] = 3
        object["c"] = 4
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
        #expect(object["b"] == 3)
    }
}
