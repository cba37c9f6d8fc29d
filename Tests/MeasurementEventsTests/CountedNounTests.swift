import MeasurementEvents
import Testing

/// The one helper every message that counts things uses.
struct CountedNounTests {
    @Test(
        arguments: [
            (0, "event", nil, "0 events"), (1, "event", nil, "1 event"), (2, "event", nil, "2 events"),
            (1, "new event", nil, "1 new event"), (3, "log line", nil, "3 log lines"),
            (1, "entry", "entries", "1 entry"), (-1, "row", nil, "-1 rows"), (12, "entry", "entries", "12 entries"),
        ] as [(Int, String, String?, String)])
    func oneThingIsSingularAndAnyOtherCountPlural(count: Int, noun: String, plural: String?, expected: String) {
        #expect(String(counting: count, noun, plural: plural) == expected)
    }

    @Test func anyIntegerTypeCounts() {
        #expect(String(counting: Int64(1), "row") == "1 row")
        #expect(String(counting: UInt8(2), "row") == "2 rows")
    }

    @Test func aNounAloneTakesTheNumberOfACountWrittenElsewhere() {
        #expect("event".pluralized(for: 1) == "event")
        #expect("event".pluralized(for: 1_204) == "events")
        #expect("entry".pluralized(for: 0, plural: "entries") == "entries")
    }
}
