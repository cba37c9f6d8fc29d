import Testing

@testable import MeasurementEvents

struct FlattenerTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var input: JSONObject
        var expected: [String: String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "strings stay as they are", input: ["a": "x y", "b": ""], expected: ["a": "x y", "b": ""]),
        Case(name: "integers in decimal", input: ["n": 42, "m": -7], expected: ["n": "42", "m": "-7"]),
        Case(
            name: "doubles in shortest round-trip form", input: ["a": 0.1, "b": 3.0, "c": 1e-05, "d": 2.5e300],
            expected: ["a": "0.1", "b": "3.0", "c": "1e-05", "d": "2.5e+300"]),
        Case(name: "booleans as 1 and 0", input: ["t": true, "f": false], expected: ["t": "1", "f": "0"]),
        Case(name: "null drops the key", input: ["gone": nil, "kept": "x"], expected: ["kept": "x"]),
        Case(
            name: "nested dictionaries become parent/child keys",
            input: ["extras": ["fb_app_id": 123, "deep": ["k": "v"]]],
            expected: ["extras/fb_app_id": "123", "extras/deep/k": "v"]),
        Case(name: "an empty dictionary contributes nothing", input: ["e": [:], "x": "1"], expected: ["x": "1"]),
        Case(
            name: "arrays become compact JSON with sorted object keys",
            input: ["list": ["a", 1, true, nil, ["z": 1, "a": [2.5]]]],
            expected: ["list": #"["a",1,true,null,{"a":[2.5],"z":1}]"#]),
        Case(
            name: "a literal key beats a flattened one, whatever the order",
            input: ["extras": ["fb_app_id": 1], "extras/fb_app_id": "literal"],
            expected: ["extras/fb_app_id": "literal"]),
        Case(
            name: "a shallower flattened key beats a deeper one",
            input: ["a": ["b/c": "shallow"], "a/b": ["c": "deep"]], expected: ["a/b/c": "shallow"]),
        Case(
            name: "between equal depths the first member wins",
            input: ["a/b": ["c": "first"], "a": ["b/c": "second"]], expected: ["a/b/c": "first"]),
        Case(
            name: "strings with quotes and newlines are kept verbatim", input: ["q": "say \"hi\"\nbye"],
            expected: ["q": "say \"hi\"\nbye"]),
        Case(
            name: "non-finite doubles", input: ["nan": .double(.nan), "inf": .double(.infinity)],
            expected: ["nan": "nan", "inf": "inf"]),
    ]

    @Test(arguments: cases)
    func flattensByTheDocumentedRule(_ testCase: Case) throws {
        let result = try Flattener().flatten(testCase.input)
        #expect(result.fields == testCase.expected)
        #expect(result.truncatedValues == 0)
    }

    @Test func flatteningIsDeterministicAcrossRuns() throws {
        let input: JSONObject = ["b": ["y": [3, 2, 1], "x": 1.5], "a": "s", "a/x": nil]
        let first = try Flattener().flatten(input)
        for _ in 0..<10 { #expect(try Flattener().flatten(input) == first) }
    }

    @Test func rejectsTooManyFields() {
        let limits = FlatteningLimits(maximumFields: 3, maximumKeyBytes: 100, maximumValueBytes: 100, maximumDepth: 4)
        let input = JSONObject((0..<4).map { ("k\($0)", JSONValue.int(Int64($0))) })
        #expect(throws: FlatteningRejection.tooManyFields(count: 4, limit: 3)) {
            try Flattener(limits: limits).flatten(input)
        }
    }

    @Test func rejectsAKeyOverTheLimit() {
        let limits = FlatteningLimits(maximumFields: 10, maximumKeyBytes: 8, maximumValueBytes: 100, maximumDepth: 4)
        #expect(throws: FlatteningRejection.self) { try Flattener(limits: limits).flatten(["parent": ["child": 1]]) }
        #expect(throws: Never.self) { try Flattener(limits: limits).flatten(["parent": 1]) }
    }

    @Test func rejectsNestingDeeperThanTheLimit() {
        let limits = FlatteningLimits(maximumFields: 10, maximumKeyBytes: 100, maximumValueBytes: 100, maximumDepth: 2)
        #expect(throws: FlatteningRejection.tooDeep(limit: 2)) {
            try Flattener(limits: limits).flatten(["a": ["b": ["c": ["d": 1]]]])
        }
        #expect(throws: Never.self) { try Flattener(limits: limits).flatten(["a": ["b": ["c": 1]]]) }
    }

    @Test func truncatesALongValueAtACharacterBoundaryWithAMarker() throws {
        let limits = FlatteningLimits(maximumFields: 10, maximumKeyBytes: 100, maximumValueBytes: 20, maximumDepth: 4)
        let long = String(repeating: "é", count: 30)  // 2 bytes each
        let result = try Flattener(limits: limits).flatten(["v": .string(long), "short": "ok"])
        let value = try #require(result.fields["v"])
        #expect(value.hasSuffix(FlatteningLimits.truncationMarker))
        #expect(value.utf8.count <= 20)
        #expect(value.dropLast(FlatteningLimits.truncationMarker.count).allSatisfy { $0 == "é" })
        #expect(result.fields["short"] == "ok")
        #expect(result.truncatedValues == 1)
    }

    @Test func checkingFlatFieldsTruncatesAndCounts() throws {
        let limits = FlatteningLimits(maximumFields: 2, maximumKeyBytes: 4, maximumValueBytes: 16, maximumDepth: 4)
        let flattener = Flattener(limits: limits)
        let checked = try flattener.check(["k": String(repeating: "x", count: 40)])
        #expect(checked.truncatedValues == 1)
        #expect(checked.fields["k"]!.hasSuffix(FlatteningLimits.truncationMarker))
        #expect(throws: FlatteningRejection.self) { try flattener.check(["long key": "v"]) }
        #expect(throws: FlatteningRejection.self) { try flattener.check(["a": "1", "b": "2", "c": "3"]) }
    }
}
