import Foundation
import MeasurementEvents
import Testing

@testable import EventStore

/// `NDJSONCodec.line(for:)` writes bytes in runs; these tests hold it to the line the `String` writer made before
/// (kept here as the reference), and to reading back as the same event.
struct NDJSONLineTests {
    /// The writer before: `JSONValue.writeString` for each string, keys sorted by their UTF-8 bytes.
    static func referenceLine(for event: MeasurementEvent) -> String {
        var text = "{\"id\":"
        JSONValue.writeString(event.id.description, to: &text)
        text += ",\"name\":"
        JSONValue.writeString(event.name, to: &text)
        text += ",\"ts\":" + String(event.timestamp) + ",\"fields\":{"
        let keys = event.fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (offset, key) in keys.enumerated() {
            if offset > 0 { text += "," }
            JSONValue.writeString(key, to: &text)
            text += ":"
            JSONValue.writeString(event.fields[key]!, to: &text)
        }
        return text + "}}"
    }

    /// Random strings from pieces that need escaping or sort differently as bytes than as `String`s: quotes,
    /// backslashes, every control character, DEL, `é` composed and decomposed, CJK, an emoji, uppercase.
    static func randomText(_ generator: inout SeededGenerator) -> String {
        let pieces =
            [
                "a", "Z", "ref", "\"", "\\", "/", "\u{7F}", "é", "e\u{301}", "日本", "🚀", " ", "%22", "\\u0041",
            ] + (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        return (0..<Int(generator.next() % 8)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }
            .joined()
    }

    @Test func aLineIsTheReferenceWritersLineForRandomEvents() throws {
        var generator = SeededGenerator(seed: 23)
        for round in 0..<2_000 {
            var fields: [String: String] = [:]
            for _ in 0..<Int(generator.next() % 7) {
                fields[Self.randomText(&generator)] = Self.randomText(&generator)
            }
            let id: EventID =
                switch round % 3 {
                case 0: EventID(uuidHigh: generator.next(), low: generator.next())
                case 1: EventID(Self.randomText(&generator) + "x")
                default: EventID("0192F5C3-8A1B-7C4D-9E2F-0123456789AB")
                }
            let timestamp = Int64(bitPattern: generator.next()) >> Int64(generator.next() % 64)
            let event = MeasurementEvent(
                id: id, name: "n" + Self.randomText(&generator), fields: fields, timestamp: timestamp)
            let line = NDJSONCodec.line(for: event)
            #expect(line == Self.referenceLine(for: event))
            var bytes: [UInt8] = [1, 2]
            NDJSONCodec.appendLine(for: event, to: &bytes)
            #expect(bytes == [1, 2] + Array(line.utf8))
        }
    }

    @Test func keysAreInByteOrderNotStringOrder() {
        // As Strings "e\u{301}" equals "é", which sorts after "f"; its bytes sort before those of "f".
        let event = MeasurementEvent(
            id: EventID("id"), name: "n", fields: ["z": "1", "ü": "2", "f": "3", "e\u{301}": "4", "Z": "5"],
            timestamp: 0)
        #expect("e\u{301}" > "f")
        #expect(
            NDJSONCodec.line(for: event)
                == #"{"id":"id","name":"n","ts":0,"fields":{"Z":"5","e\#u{301}":"4","f":"3","z":"1","ü":"2"}}"#)
    }

    @Test func aWrittenLineReadsBackAsTheSameEvent() throws {
        let event = MeasurementEvent(
            id: EventID(uuidHigh: 0x0192_f5c3_8a1b_7c4d, low: 0x9e2f_0123_4567_89ab), name: "al_nav_out",
            fields: ["targetURL": "https://a.example/?q=\"x\"\\\n\t\u{1}", "ref": "日本🚀"], timestamp: 1_763_683_200_000)
        let line = NDJSONCodec.line(for: event)
        #expect(line.hasPrefix(#"{"id":"0192f5c3-8a1b-7c4d-9e2f-0123456789ab","#))
        #expect(line.contains(#"\"x\"\\\n\t\u0001"#))
        #expect(try NDJSONCodec().decode(line) == event)
    }
}
