import Testing

@testable import MeasurementEvents

struct EventIDTests {
    /// Text ids compare and order by their bytes, as the databases' unique ids do: the same text in two Unicode
    /// normalisations is two ids (`String`'s `==` would make them one, and an event a false duplicate).
    @Test func textIdsCompareAndOrderByTheirBytes() {
        let composed = EventID("caf\u{E9}")  // é as one scalar
        let decomposed = EventID("cafe\u{301}")  // e and a combining accent
        #expect(composed.description == decomposed.description, "String equality calls them equal")
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed, EventID("caf\u{E9}")]).count == 2)
        // By bytes: 63 61 66 65 cc 81 before 63 61 66 c3 a9.
        #expect(decomposed < composed && !(composed < decomposed))
        #expect([composed, EventID("cafe"), decomposed].sorted() == [EventID("cafe"), decomposed, composed])
        #expect(EventID("caf\u{E9}") == composed)
        let uuid = EventID("0192f5c3-8a1b-7c4d-9e2f-0123456789ab")
        #expect(uuid == EventID("0192f5c3-8a1b-7c4d-9e2f-0123456789ab"))
        #expect(uuid != EventID("0192F5C3-8A1B-7C4D-9E2F-0123456789AB"))
    }

    @Test func generatedIdsAreVersion7AndRoundTripThroughText() {
        let id = EventID()
        let text = id.description
        #expect(text.count == 36)
        #expect(Array(text)[14] == "7")
        #expect(EventID(text) == id)
        #expect(id.milliseconds != nil)
    }

    @Test func idsOfOneSequenceIncreaseEvenWithinOneMillisecondAndWhenTheClockGoesBack() {
        var sequence = EventIDSequence()
        var previous = sequence.next(milliseconds: 1_000)
        for step in 0..<10_000 {
            let milliseconds: Int64 = step % 3 == 0 ? 999 : 1_000  // the clock jumps back now and then
            let id = sequence.next(milliseconds: milliseconds)
            #expect(previous < id)
            #expect(previous.description < id.description)
            previous = id
        }
        #expect(previous.milliseconds == 1_000)
    }

    @Test func theTimestampIsTheIdsLeadingBits() {
        var sequence = EventIDSequence()
        let id = sequence.next(milliseconds: 1_763_683_200_000)
        #expect(id.milliseconds == 1_763_683_200_000)
        #expect(id.description.hasPrefix("019aa3b5-ec00-7"))
    }

    @Test(arguments: [
        "custom-id-1", "0192F5C3-8A1B-7C4D-9E2F-0123456789AB", "", "not-a-uuid-but-36-characters-long!!!",
    ])
    func anyOtherTextIsKeptVerbatim(_ text: String) {
        #expect(EventID(text).description == text)
        #expect(EventID(text).milliseconds == nil)
    }

    /// The parser against a plain reading of the canonical form, on random UUIDs and on every one-byte change of
    /// one: at each position a digit, a letter either side of `a`...`f` and `0`...`9` in either case, a dash.
    @Test func aUUIDIsParsedExactlyWhenItsTextIsCanonical() {
        func reference(_ text: String) -> (UInt64, UInt64)? {
            let bytes = Array(text.utf8)
            let dashes = [8, 13, 18, 23]
            guard bytes.count == 36 else { return nil }
            for (position, byte) in bytes.enumerated() {
                let isDash = byte == UInt8(ascii: "-")
                let isHex = (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
                guard dashes.contains(position) ? isDash : isHex else { return nil }
            }
            let hex = String(decoding: bytes.filter { $0 != UInt8(ascii: "-") }, as: UTF8.self)
            guard let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else {
                return nil
            }
            return (high, low)
        }
        var generator = SeededGenerator(seed: 11)
        let replacements = Array("09afgAF/:`@-".utf8)
        for _ in 0..<200 {
            let text = EventID(uuidHigh: generator.next(), low: generator.next()).description
            #expect(EventID.parseUUID(text).map { [$0.0, $0.1] } == reference(text).map { [$0.0, $0.1] })
            var bytes = Array(text.utf8)
            let position = Int(generator.next() % 36)
            for replacement in replacements {
                bytes[position] = replacement
                let changed = String(decoding: bytes, as: UTF8.self)
                let parsed = EventID.parseUUID(changed)
                #expect(parsed.map { [$0.0, $0.1] } == reference(changed).map { [$0.0, $0.1] }, "\(changed)")
            }
        }
        #expect(EventID.parseUUID("0192f5c3-8a1b-7c4d-9e2f-0123456789ab0") == nil)
        #expect(EventID.parseUUID("0192f5c3-8a1b-7c4d-9e2f-0123456789a") == nil)
    }

    @Test func aSeededBusGivesTheSameIdsForTheSamePostsAndClock() {
        func ids(seed: UInt64) -> [EventID] {
            let bus = MeasurementEventBus(clock: ManualEventClock(milliseconds: 1_763_683_200_000), idSeed: seed)
            return (0..<5).compactMap { _ in bus.post("e") }
        }
        #expect(ids(seed: 42) == ids(seed: 42))
        #expect(ids(seed: 42) != ids(seed: 43))
        #expect(Set(ids(seed: 42)).count == 5)
    }
}
