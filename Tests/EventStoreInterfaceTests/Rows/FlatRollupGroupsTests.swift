import MeasurementEvents
import Testing

@testable import EventStoreInterface

/// The rollup groups both backends find for lines read in place: the groups and keys of the lines' decoded events.
struct FlatRollupGroupsTests {
    private static let time: Int64 = 1_763_686_811_051  // 2025-11-21 01:00:11 UTC

    /// A line of `al_nav_in` with `fields` (a JSON object's members) at `time`.
    private static func line(_ fields: String, at time: Int64 = time, name: String = "al_nav_in") -> String {
        #"{"name":"\#(name)","ts":\#(time),"fields":{\#(fields)}}"#
    }

    private static let base = #""ref":"feed","refererAppName":"Facebook","type":"app","success":"1""#

    /// Lines of one group, then lines that differ from it in one thing each: bucket, name, success, a dimension's
    /// value or its presence (absent is not empty).
    private static let lines = [
        line(base), line(base, at: time + 1), line(base + #","sourceURLHost":"example.com""#),
        line(base, at: time + 900_000), line(base, name: "al_nav_out"),
        line(#""ref":"feed","refererAppName":"Facebook","type":"app","success":"0""#),
        line(#""ref":"feed","refererAppName":"Facebook","type":"app""#),
        line(#""ref":"","refererAppName":"Facebook","type":"app","success":"1""#),
        line(#""refererAppName":"Facebook","type":"app","success":"1""#),
        line(#""ref":"feeds","refererAppName":"Facebook","type":"app","success":"1""#),
        line(base + #","error":"timeout""#), line(base + #","error":"timeout","extra":"x""#),
        line(#""type":"app","refererAppName":"Facebook","success":"1","ref":"feed""#),  // the first line's group
    ]

    @Test func linesReadInPlaceFallInTheGroupsOfTheirDecodedEvents() throws {
        let many = (0..<3_000).map { Self.line(Self.base + #","sourceURLHost":"h\#($0 % 1_500).example""#) }
        try Self.expectGroups(of: Self.lines + many)
    }

    @Test func theGroupsOfABatchAreFoundAgainAfterTheTableGrows() throws {
        // More groups than the table's first 2,048 slots hold at half load, each met again afterwards.
        let hosts = (0..<2_500).map { Self.line(Self.base + #","sourceURLHost":"h\#($0).example""#) }
        try Self.expectGroups(of: hosts + hosts.reversed())
    }

    /// Each line's group number and key, its fields sorted by ``FlatLineColumns`` as both backends sort them,
    /// against the decoded event's key and `success`: equal keys, equal numbers.
    private static func expectGroups(of lines: [String]) throws {
        var groups = FlatRollupGroups()
        var sorted = FlatLineColumns()
        var line = FlatLine()
        var keys: [RollupKey] = []
        var numberOfKey: [RollupKey: Int32] = [:]
        let codec = NDJSONCodec()
        for text in lines {
            var extra: [(String, String)] = []
            let decoded = EventColumns.columns(of: try codec.decode(text), extra: &extra) { _, _ in }
            // The line read in place points into its bytes: it is grouped while they are at hand.
            let found: (scanned: Bool, known: Int32?, key: RollupKey?, success: Int64?) = Array(text.utf8)
                .withUnsafeBufferPointer { bytes in
                    guard codec.scan(bytes, into: &line) else { return (false, nil, nil, nil) }
                    sorted.sort(line.fields)
                    let signature = groups.signature(of: line, success: sorted.success, columns: sorted.columns)
                    if let known = groups.number(of: signature) { return (true, known, nil, sorted.success) }
                    groups.insert(signature, number: Int32(keys.count))
                    let key = FlatRollupGroups.key(of: line, success: sorted.success, columns: sorted.columns)
                    return (true, nil, key, sorted.success)
                }
            try #require(found.scanned, "\(text) is read in place")
            #expect(found.success == decoded.success, "\(text)")
            if let known = found.known {
                #expect(keys[Int(known)] == decoded.key, "\(text)")
                #expect(numberOfKey[decoded.key] == known)
            } else if let key = found.key {
                #expect(key == decoded.key, "\(text)")
                #expect(numberOfKey[key] == nil, "\(text) is a group met before")
                numberOfKey[key] = Int32(keys.count)
                keys.append(key)
            }
        }
        #expect(keys.count == Set(lines.map { try? codec.decode($0) }.compactMap { $0 }.map(groupKey)).count)
    }

    /// The decoded event's rollup key.
    private static func groupKey(_ event: MeasurementEvent) -> RollupKey {
        var extra: [(String, String)] = []
        return EventColumns.columns(of: event, extra: &extra) { _, _ in }.key
    }
}
