import Foundation
import Testing

@testable import MeasurementEvents

struct NDJSONTests {
    let codec = NDJSONCodec()

    @Test func readsTimesFieldsAndAliases() throws {
        let event = try codec.decode(
            #"{"name":"al_nav_out","ts":"2025-11-21T01:00:00.5+01:00","fields":{"sourceHost":"a.com","type":"failed","intentData":"x://y","extras":{"n":1,"ok":true}},"extra_key":[1]}"#
        )
        #expect(event.timestamp == 1_763_683_200_500)
        #expect(
            event.fields == [
                "sourceURLHost": "a.com", "type": "fail", "outputURL": "x://y", "extras/n": "1", "extras/ok": "1",
            ])
        #expect(try codec.decode(#"{"name":"a","ts":1763683200000}"#).timestamp == 1_763_683_200_000)
    }

    @Test func derivesTheSameIdForTheSameEventWhateverTheKeyOrder() throws {
        let first = try codec.decode(#"{"name":"a","ts":5,"fields":{"x":"1","y":"2"}}"#)
        let second = try codec.decode(#"{"fields":{"y":"2","x":"1"},"ts":5,"name":"a"}"#)
        let other = try codec.decode(#"{"name":"a","ts":6,"fields":{"x":"1","y":"2"}}"#)
        #expect(first.id == second.id)
        #expect(first.id != other.id)
        #expect(try codec.decode(#"{"id":"mine","name":"a","ts":5}"#).id == EventID("mine"))
    }

    @Test(arguments: [
        ("", "invalid JSON"),
        ("[1,2]", "must be a JSON object"),
        (#"{"ts":1}"#, "\"name\""),
        (#"{"name":"","ts":1}"#, "\"name\""),
        (#"{"name":"a"}"#, "\"ts\" is missing"),
        (#"{"name":"a","ts":"yesterday"}"#, "RFC 3339"),
        (#"{"name":"a","ts":1.5}"#, "\"ts\""),
        (#"{"name":"a","ts":1,"fields":"x"}"#, "\"fields\" must be an object"),
        (#"{"name":"a","ts":1,"id":7}"#, "\"id\""),
        (String(repeating: "[", count: 10_000), "nesting too deep"),
    ])
    func rejectsInvalidLinesWithAReason(line: String, reason: String) {
        let error = #expect(throws: NDJSONLineError.self) { try codec.decode(line) }
        #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "no error")")
    }

    @Test func neverCrashesOnArbitraryBytes() {
        var generator = SeededGenerator(seed: 42)
        let alphabet = Array(#"{}[]":,\ 0123456789.eE-+truefalsnameidtsfields"#.utf8) + [0xC3, 0xFF, 0x80, 0x00, 0x0A]
        for _ in 0..<3_000 {
            let count = Int(generator.next() % 80)
            var bytes = (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            if generator.next() % 3 == 0 {
                bytes = Array(#"{"name":"a","ts":1,"fields":{"#.utf8) + bytes
            }
            _ = bytes.withUnsafeBufferPointer { try? codec.decode(utf8: $0) }
        }
    }

    @Test func rfc3339TimesAndDatesReadAsUTCMilliseconds() {
        #expect(EventTime.milliseconds(timeOrDate: "2025-11-21") == 1_763_683_200_000)
        #expect(EventTime.milliseconds(rfc3339: "2025-11-21T00:00:00Z") == 1_763_683_200_000)
        #expect(EventTime.milliseconds(rfc3339: "2025-11-20T19:00:00.123456-05:00") == 1_763_683_200_123)
        #expect(EventTime.milliseconds(rfc3339: "1969-12-31T23:59:59.999Z") == -1)
        #expect(EventTime.milliseconds(rfc3339: "2025-02-29T00:00:00Z") == nil)
        #expect(EventTime.milliseconds(timeOrDate: "2025-11-21T00:00") == nil)
        #expect(EventTime.rfc3339(milliseconds: 1_763_683_200_123) == "2025-11-21T00:00:00.123Z")
    }
}

struct HostileInputTests {
    @Test func aLineWithAHundredThousandKeysIsRejectedNotHung() throws {
        var line = #"{"name":"a","ts":1,"fields":{"#
        line += (0..<100_000).map { #""k\#($0)":"v""# }.joined(separator: ",")
        line += "}}"
        let error = #expect(throws: NDJSONLineError.self) { try NDJSONCodec().decode(line) }
        #expect(error?.reason.contains("fields") == true)
    }

    @Test func aRepeatedKeyKeepsItsFirstPlaceAndItsLastValue() throws {
        let keys = (0..<40).map { #""k\#($0)":"\#($0)""# }.joined(separator: ",")
        let value = try JSONValue.parse("{" + keys + #","k3":"last","k39":"end"}"#)
        #expect(value.objectValue?.count == 40)
        #expect(value["k3"] == .string("last"))
        #expect(value.objectValue?.keys.first == "k0")
    }
}
