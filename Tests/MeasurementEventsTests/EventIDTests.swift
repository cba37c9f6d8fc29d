import Testing

@testable import MeasurementEvents

struct EventIDTests {
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
