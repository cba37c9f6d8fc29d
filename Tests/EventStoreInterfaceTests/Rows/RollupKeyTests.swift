import MeasurementEvents
import Testing

@testable import EventStoreInterface

/// Rollup groups as the writers' dictionaries tell them apart: by every dimension's bytes, whatever the hash leaves
/// out, and by bucket, day and series.
struct RollupKeyTests {
    private static let time: Int64 = 1_763_686_811_051  // 2025-11-21 01:00:11 UTC

    private static func key(
        at time: Int64 = time, name: String = "al_nav_in", ref: String? = "feed", referer: String? = "Facebook",
        type: String? = "app", success: Int64? = 1, host: String? = "example.com", error: String? = nil
    ) -> RollupKey {
        RollupKey(
            timestamp: time, name: name, ref: ref, refererAppName: referer, type: type, success: success,
            sourceURLHost: host, error: error)
    }

    @Test func keysOfTheSameGroupAreOneDictionaryEntry() {
        var counts: [RollupKey: Int] = [:]
        for _ in 0..<3 { counts[Self.key(), default: 0] += 1 }
        counts[Self.key(at: Self.time + 1), default: 0] += 1  // same 15 minutes
        #expect(counts.count == 1 && counts.values.first == 4)
        #expect(Self.key().bucket == 1_763_686_800_000)
    }

    @Test(arguments: [
        key(at: time + 900_000), key(name: "al_nav_out"), key(ref: nil), key(ref: "feeds"), key(referer: nil),
        key(type: "web"), key(type: nil), key(success: 0), key(success: nil), key(host: "example.org"),
        key(host: nil), key(error: "timeout"), key(ref: "cafe\u{301}"),
    ])
    func aKeyDifferingInOneDimensionIsAnotherGroup(other: RollupKey) {
        let counts = [Self.key(): 1, other: 2]
        #expect(counts.count == 2)
        #expect(Self.key(ref: "café") != Self.key(ref: "cafe\u{301}"))  // bytes, not Unicode equivalence
    }

    @Test func theDayAndTheSeriesKeepTheirDimensions() {
        let key = Self.key(error: "timeout")
        let day = key.day
        #expect(day.bucket == 1_763_683_200_000)
        #expect(day.name == "al_nav_in" && day.ref == "feed" && day.error == "timeout" && day.success == 1)
        #expect(day != key && Self.key(at: Self.time + 3_600_000, error: "timeout").day == day)
        let series = key.series
        #expect(series.bucket == key.bucket && series.name == "al_nav_in" && series.type == "app")
        // The series ignores the dimensions it does not hold.
        #expect(Self.key(ref: "other", host: nil, error: nil).series == series)
        #expect(Self.key(type: "web").series != series && Self.key(success: 0).series != series)
        #expect(Set([series, Self.key(ref: "x").series, Self.key(at: Self.time + 900_000).series]).count == 2)
    }

    /// A span's start is the largest multiple of its size at or before the time, before the epoch too; a time in
    /// the span that starts below `Int64.min` (one the intake refuses) gives `Int64.min`, not a trap.
    @Test func spansStartAtMultiplesOfTheirSizeAndNeverTrap() {
        let quarter = RollupKey.bucketMilliseconds
        #expect(RollupKey.start(of: 1_763_686_811_051, size: quarter) == 1_763_686_800_000)
        #expect(RollupKey.start(of: -1, size: quarter) == -quarter)
        #expect(RollupKey.start(of: -quarter, size: quarter) == -quarter)
        #expect(RollupKey.start(of: .max, size: RollupKey.dayMilliseconds) <= .max)
        #expect(RollupKey.start(of: .min, size: quarter) == .min)
        #expect(RollupKey.start(of: .min + 5, size: RollupKey.dayMilliseconds) == .min)
        let edge = EventTime.supportedRange.lowerBound
        #expect(RollupKey.start(of: edge, size: RollupKey.dayMilliseconds) == edge)
    }
}
