import Foundation
import Testing

@testable import MeasurementEvents

/// `NDJSONCodec.line(for:)` writes bytes in runs; these tests hold it to the line the `String` writer made before
/// (kept here as the reference), and to reading back as the same event.
struct NDJSONLineTests {
    /// The writer before: each string escaped by Unicode scalar (as `JSONValue.writeString` escaped before it wrote
    /// bytes), keys sorted by their UTF-8 bytes.
    static func referenceLine(for event: MeasurementEvent) -> String {
        func string(_ value: String) -> String {
            var output = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": output += "\\\""
                case "\\": output += "\\\\"
                case "\n": output += "\\n"
                case "\r": output += "\\r"
                case "\t": output += "\\t"
                case "\u{08}": output += "\\b"
                case "\u{0C}": output += "\\f"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default:
                    output.unicodeScalars.append(scalar)
                }
            }
            return output + "\""
        }
        var text = "{\"id\":" + string(event.id.description) + ",\"name\":" + string(event.name)
        text += ",\"ts\":" + String(event.timestamp) + ",\"fields\":{"
        let keys = event.fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (offset, key) in keys.enumerated() {
            if offset > 0 { text += "," }
            text += string(key) + ":" + string(event.fields[key]!)
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

    /// The id derived before (UTF-8 views, keys sorted by them): ids derived for stored events must not change.
    static func referenceDerivedID(name: String, timestamp: Int64, fields: [String: String]) -> EventID {
        var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B
        func mix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
            for byte in bytes {
                hash ^= UInt128(byte)
                hash = hash &* prime
            }
            hash ^= 0xFF
            hash = hash &* prime
        }
        mix(name.utf8)
        mix(String(timestamp).utf8)
        for key in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            mix(key.utf8)
            mix(fields[key]!.utf8)
        }
        let high = UInt64(truncatingIfNeeded: hash >> 64) & ~0xF000 | 0x8000
        let low = UInt64(truncatingIfNeeded: hash) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return EventID(uuidHigh: high, low: low)
    }

    @Test func aDerivedIDIsTheOneDerivedBefore() {
        var generator = SeededGenerator(seed: 29)
        for _ in 0..<2_000 {
            var fields: [String: String] = [:]
            for _ in 0..<Int(generator.next() % 9) {
                fields[Self.randomText(&generator)] = Self.randomText(&generator)
            }
            let name = Self.randomText(&generator)
            let timestamp = Int64(bitPattern: generator.next()) >> Int64(generator.next() % 64)
            #expect(
                NDJSONCodec.derivedID(name: name, timestamp: timestamp, fields: fields)
                    == Self.referenceDerivedID(name: name, timestamp: timestamp, fields: fields))
        }
        // As the binaries before derived it for this line (alstats ingest, then alstats export).
        let pinned = NDJSONCodec.derivedID(
            name: "al_nav_in", timestamp: 1_763_683_200_000, fields: ["ref": "a", "targetURL": "https://a.example/"])
        #expect(pinned.description == "e8bf040f-630e-8a4a-b087-790bfc22ec97")
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
