#if Server

import MeasurementEvents
import NIOCore
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// The rows an ingest makes from NDJSON bytes in place against the rows of the decoded events: the same `COPY`
/// line, id, time and rollup group for every line taken in place; no server needed.
struct PostgresEventRowsTests {
    /// Lines of every kind an ingest meets: the three App Links events with and without ids, times as integers and
    /// as RFC 3339 text, aliases, extra fields, arrays, objects, numbers, booleans and null as values, `success`
    /// other than 1 or 0, escaped quotes, backslashes and slashes, secrets in keys and in URLs (plain and
    /// percent-encoded), arrivals at hosted links, hits of hosted links, devices' loss records.
    static func corpus(count: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        func pick<T>(_ values: [T]) -> T { values[Int(generator.next() % UInt64(values.count))] }
        let names = [
            EventName.navIn, EventName.navIn, EventName.navOut, EventName.refBackOut, LinkRollupKey.hitName,
            DeviceLoss.eventName, "custom_event",
        ]
        let ids = [
            #""id":"0192f5c3-8a1b-7c4d-8e2f-0123456789ab","#, "", #""id":null,"#, #""id":"text-id-1","#,
            #""id":"0192F5C3-8A1B-7C4D-8E2F-0123456789AB","#, #""id":"0192f5c3-8a1b-7c4d-8e2f-0123456789a-","#,
        ]
        let times = [
            "1763683200123", #""2025-11-21T00:00:00.123Z""#, "-5", #""2025-11-21T01:00:00+01:00""#,
            "253402300799999",
        ]
        let values: [(String, [String])] = [
            (
                "inputURL",
                [
                    "readly://article/1?al_applink_data=%7B%22target_url%22%3A%22https%3A%2F%2Fx.example%2Fa%22%7D",
                    "readly://article/2?al_applink_data=%7B%22access_token%22%3A%22abc%22%7D",
                    "fb123://authorize#expires_in=0&access_token=SECRET", "readly://article/3",
                ]
            ),
            (
                "targetURL",
                ["https://x.example/a?ref=feed", "https://go.example.com/l/invite?r=1", "https://x.example/l/"]
            ),
            ("refererAppName", ["Facebook", "Mail"]), ("ref", ["feed", "share"]), ("success", ["1", "0", "yes"]),
            ("type", ["app", "web", "failed", "fail"]), ("sourceHost", ["a.example"]), ("sourceURLHost", ["b.example"]),
            ("intentData", ["readly://x"]), ("outputURL", ["readly://y", #"readly://c:\\dir\/x"#]),
            ("error", ["no target"]),
            ("version", ["1.0"]), ("campaign", ["autumn"]), ("extras/fb_access_token", ["t0k3n"]), ("password", ["pw"]),
            ("zeta", ["z"]), ("", ["empty key"]), ("slug", ["invite"]), ("status", ["200"]), ("crawler", ["1"]),
            ("reason", ["buffer_full"]), ("count", ["3"]), ("code", ["c0de"]), ("note", ["?code=x&y=1"]),
            ("camp", ["prefix of campaign"]), ("sourceApplication", [""]), ("referer", ["a:b"]),
            // Escapes in values (a key with one is decoded): a quote, a backslash, a slash, in columns and `extra`.
            ("extras", [#"{\"source\":\"mail\",\"path\":\"c:\\tmp\"}"#, #"a\/b"#]),
            ("refererURL", [#"readly://say?q=\"hi\""#]), ("weird", [#"back\\slash"#]),
        ]
        // Values that are not strings: arrays (whose JSON text, a value, holds quotes), objects (flattened),
        // numbers, booleans and null.
        let raw: [(String, [String])] = [
            ("tags", [#"["promo","ab-1"]"#, "[]", "[true,null,2]"]),
            ("device", [#"{"os":{"name":"iOS"},"ids":["a","b"]}"#, #"{"model":"Pixel"}"#]),
            ("position", ["12", "-3", "true", "false", "null"]),
        ]
        return (0..<count).map { _ in
            var members: [String] = []
            for (key, choices) in values where generator.next() % 3 == 0 {
                members.append(#""\#(key)":"\#(pick(choices))""#)
            }
            for (key, choices) in raw where generator.next() % 3 == 0 {
                members.append(#""\#(key)":\#(pick(choices))"#)
            }
            let fields = generator.next() % 9 == 0 ? "null" : "{" + members.joined(separator: ",") + "}"
            return "{" + pick(ids) + #""name":"\#(pick(names))","ts":\#(pick(times)),"fields":\#(fields)}"#
        }
    }

    /// The bytes of the line at `position` of `rows`, with its newline.
    static func line(_ position: Int, of rows: PostgresEventRows) -> [UInt8] {
        let range = rows.range(of: position)
        return rows.text.getBytes(at: range.lowerBound, length: range.count) ?? []
    }

    /// For every line of the corpus the rows take in place, the rows of its decoded event (redacted) are the same:
    /// line, id, time, rollup group, and no link group or loss record (those lines are left to the decoder). Lines
    /// with a secret, an arrival at a hosted link, a hit or a loss record are not taken in place; lines with escaped
    /// values are.
    @Test(arguments: [Redactor(), Redactor(secretKeys: [])])
    func linesReadInPlaceAreTheDecodedEventsLines(redactor: Redactor) throws {
        let codec = NDJSONCodec()
        var flat = FlatLine()
        var taken = 0
        var left = 0
        var takenEscaped = 0
        for text in Self.corpus(count: 4_000, seed: 11) {
            let bytes = Array(text.utf8)
            let event = try bytes.withUnsafeBufferPointer { try codec.decode(utf8: $0) }
            var decoded = PostgresEventRows(redactor: redactor, capacity: 1)
            decoded.append(event)
            var fast = PostgresEventRows(redactor: redactor, capacity: 1)
            // The line read in place points into `bytes`: it is appended while they are at hand.
            let (scanned, appended) = bytes.withUnsafeBufferPointer { buffer in
                let scanned = codec.scan(buffer, into: &flat)
                return (scanned, scanned && fast.append(flat))
            }
            #expect(scanned, "\(text)")
            guard appended else {
                #expect(fast.count == 0 && fast.text.readableBytes == 0)
                left += 1
                continue
            }
            taken += 1
            if flat.hasEscapedValue { takenEscaped += 1 }
            #expect(Self.line(0, of: fast) == Self.line(0, of: decoded), "\(text)")
            #expect(fast.ids == decoded.ids && fast.timestamps == decoded.timestamps)
            #expect(fast.groups[fast.group[0]] == decoded.groups[decoded.group[0]], "\(text)")
            #expect(decoded.links.isEmpty && decoded.losses.isEmpty, "\(text)")
            #expect(decoded.redactor.conservativeRedactions == 0)
            let redacted = redactor.redact(event)
            #expect(redacted.fields == event.fields, "a line taken in place holds no secret: \(text)")
        }
        #expect(taken > 300 && left > 300, "\(taken) taken, \(left) left")
        #expect(takenEscaped > 100, "\(takenEscaped) lines with an escaped value taken")
    }

    /// A line's reserved room holds its longest `COPY` text: every value (in every column and in `extra`) made only
    /// of bytes `COPY` escapes, decoded (a tab, a newline, a carriage return, a backslash, in the id and the name
    /// too) and read in place (backslashes: a value read in place holds no control character). The rows assert the
    /// bound as they write a line (in debug builds, as tests run): a bound that falls short stops this test.
    @Test func theLongestLinesFitTheRoomTheyReserve() throws {
        let keys = EventColumns.fields.map(\.field) + ["zeta", "extras/deep"]
        let escaped = String(repeating: "\t\n\r\\", count: 64)
        var fields: [String: String] = [:]
        for key in keys { fields[key] = escaped }
        var decoded = PostgresEventRows(redactor: Redactor(), capacity: 1)
        decoded.append(MeasurementEvent(id: EventID(escaped), name: escaped, fields: fields, timestamp: .min))
        #expect(decoded.count == 1)
        let line = Self.line(0, of: decoded)
        #expect(line.count > 2 * escaped.utf8.count * keys.count, "every value written, escaped")

        let backslashes = String(repeating: #"\\"#, count: 64)  // JSON of 64 backslashes
        var members = keys.map { #""\#($0)":"\#(backslashes)""# }
        members.append(#""tags":["promo","ab-1"]"#)  // an array with an escape is decoded
        let text =
            #"{"id":"text-id-1","name":"custom_event","ts":1,"fields":{"#
            + members.joined(separator: ",") + "}}"
        var flat = FlatLine()
        var fast = PostgresEventRows(redactor: Redactor(secretKeys: []), capacity: 1)
        let taken = Array(text.utf8).withUnsafeBufferPointer {
            NDJSONCodec().scan($0, into: &flat) && fast.append(flat)
        }
        #expect(taken, "the line is read in place")
        #expect(fast.count == 1 && Self.line(0, of: fast).count > 128 * keys.count)
    }

    /// Every catalogue field's key, read as bytes, names its own column; any other key none.
    @Test func keysReadAsBytesNameTheirColumns() {
        for (position, entry) in EventColumns.fields.enumerated() {
            let index = Array(entry.field.utf8).withUnsafeBufferPointer { EventColumns.bindIndex(ofKey: $0) }
            #expect(index.map(EventColumns.fieldPosition) == position, "\(entry.field)")
        }
        for other in ["", "Ref", "refs", "typ", "inputurl", "sourceHost", "intentData", "extras/ref"] {
            #expect(Array(other.utf8).withUnsafeBufferPointer { EventColumns.bindIndex(ofKey: $0) } == nil)
        }
    }

    /// Lines whose events count elsewhere or hold a secret go through their decoded events.
    @Test(arguments: [
        #"{"name":"al_nav_in","ts":1,"fields":{"targetURL":"https://go.example.com/l/invite"}}"#,
        #"{"name":"alstats_link_hit","ts":1,"fields":{"slug":"invite"}}"#,
        #"{"name":"alstats_loss","ts":1,"fields":{"reason":"buffer_full","count":"3"}}"#,
        #"{"name":"a","ts":1,"fields":{"x":"fb1://a#access_token=s"}}"#,
        #"{"name":"a","ts":1,"fields":{"Access_Token":"s"}}"#,
        #"{"name":"a","ts":1,"fields":{"u":"a://b?d=%7B%22password%22%3A%22s%22%7D"}}"#,
    ])
    func linesThatCountElsewhereOrHoldSecretsAreDecoded(text: String) {
        var flat = FlatLine()
        var rows = PostgresEventRows(redactor: Redactor(), capacity: 1)
        let taken = Array(text.utf8).withUnsafeBufferPointer {
            NDJSONCodec().scan($0, into: &flat) && rows.append(flat)
        }
        #expect(!taken && rows.count == 0)
    }
}

#endif
