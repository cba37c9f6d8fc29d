import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventReport
@testable import EventStoreInterface

/// The report of a pruned store (docs/cli.md, "Retention"): the same numbers as before the prune for every window of
/// whole 15-minute buckets (whole UTC days for the links' visitors), the install path's too (the prune keeps its raw
/// events); an edge before the horizon read from its bucket's start, and every format saying from when raw events
/// exist.
struct RetentionReportTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_774_137_600_000  // 2026-03-22T00:00:00Z
    static let cutoff = start + 5 * day
    static let bucket: Int64 = 900_000

    static func database() throws -> ReportDatabase {
        try ReportDatabase(
            events: generatedEvents(count: 3_000, seed: 5) + generatedLinkEvents(count: 1_500, seed: 6),
            publicURLs: [LinkOracle.publicURL])
    }

    /// `report` without what only a pruned store's report says.
    static func unpruned(_ report: Report) -> Report {
        var report = report
        report.window.rawEventsSince = nil
        return report
    }

    /// The install path of `report`: each link's store taps, installs, deferred opens and median delay, and the first
    /// opens. It has no rollup (`report_installs.sql`, `report_first_opens.sql` read raw events), so the prune keeps
    /// its events.
    static func installPath(_ report: Report) -> [String] {
        report.links.filter { $0.storeTaps.total + $0.installs.total + $0.deferredOpens > 0 }.map {
            "\($0.slug): \($0.storeTaps) \($0.installs) \($0.deferredOpens) \(String(describing: $0.medianDelayMilliseconds))"
        }.sorted() + ["\(report.firstOpens)"]
    }

    /// `query` from the horizon on, when it starts before it.
    static func fromCutoff(_ query: ReportQuery) -> ReportQuery {
        var clipped = query
        clipped.since = max(query.since ?? .min, Self.cutoff)
        return clipped
    }

    @Test func aReportOfWholeBucketsIsTheSameAfterAPrune() throws {
        let database = try Self.database()
        let reader = ReportReader(store: database.store)
        let paris = try #require(ReportTimeZone("Europe/Paris"))
        let windows: [ReportQuery] = [
            ReportQuery(),
            ReportQuery(since: Self.start + 2 * Self.day, until: Self.cutoff + 4 * Self.day, timeZone: paris),
            ReportQuery(
                since: Self.start + Self.day, until: Self.cutoff + 2 * Self.day + 37 * Self.bucket, ref: "feed"),
            ReportQuery(since: Self.start + 3 * Self.day, link: "invite"),
            ReportQuery(until: Self.cutoff + 7 * Self.day + 5 * Self.bucket, sourceHost: "example.com", top: 2),
        ]
        let before = try windows.map { try reader.report(for: $0) }
        let installsFromCutoff = try windows.map { Self.installPath(try reader.report(for: Self.fromCutoff($0))) }
        // Whole buckets before the horizon, within a day: every number but the links' visitors of that partial day.
        let partialDay = ReportQuery(since: Self.start + 2 * Self.day + 13 * Self.bucket, until: Self.cutoff + Self.day)
        let partialBefore = try reader.report(for: partialDay)
        try database.store.prune(before: Self.cutoff, options: PruneOptions())
        #expect(try database.store.count() < 4_500)
        for (index, query) in windows.enumerated() {
            let after = try reader.report(for: query)
            #expect(after.window.rawEventsSince == Self.cutoff)
            #expect(Self.unpruned(after) == Self.unpruned(before[index]), "\(query)")
            #expect(Self.installPath(after) == Self.installPath(before[index]), "\(query)")
        }
        for index in [0, 1, 2, 3] {
            #expect(
                Self.installPath(before[index]) != installsFromCutoff[index],
                "the window has install path events before the horizon: \(windows[index])")
        }
        var partialAfter = Self.unpruned(try reader.report(for: partialDay))
        #expect(partialAfter.links.map(\.visitors) != partialBefore.links.map(\.visitors))
        partialAfter.links = Self.unpruned(partialBefore).links
        #expect(partialAfter == Self.unpruned(partialBefore))
    }

    @Test func anEdgeBeforeTheHorizonInsideABucketIsReadFromTheBucketsStartAndSaysSo() throws {
        let database = try Self.database()
        let reader = ReportReader(store: database.store)
        let aligned = ReportQuery(since: Self.start + 2 * Self.day + 13 * Self.bucket, until: Self.cutoff + Self.day)
        let wanted = ReportQuery(since: aligned.since! + 7 * 60_000, until: aligned.until)
        let before = try reader.report(for: aligned)
        try database.store.prune(before: Self.cutoff, options: PruneOptions())
        let after = try reader.report(for: wanted)
        #expect(after.window.since == aligned.since && after.window.requestedSince == wanted.since)
        #expect(after.window.requestedUntil == nil, "an end after the horizon stays")
        #expect(after.totals == before.totals && after.daily == before.daily)
        let json = ReportFormat.json.render(after)
        #expect(json.contains(#""raw_events_since":"2026-03-27T00:00:00.000Z""#))
        #expect(json.contains(#""requested_since":"2026-03-24T03:22:00.000Z""#))
        let table = ReportFormat.table.render(after)
        #expect(table.contains("raw events since 2026-03-27T00:00:00.000Z"))
        #expect(table.contains("start 2026-03-24T03:22:00.000Z read from 2026-03-24T03:15:00.000Z"))
    }

    @Test(arguments: ReportFormat.allCases)
    func everyFormatSaysFromWhenRawEventsExistOnceSomethingWasPruned(_ format: ReportFormat) throws {
        let database = try Self.database()
        let reader = ReportReader(store: database.store)
        let mark = format == .json || format == .csv ? "raw_events_since" : "aw events since 2026-03-27T00:00:00.000Z"
        #expect(!format.render(try reader.report(for: ReportQuery())).contains(mark))
        try database.store.prune(before: Self.cutoff, options: PruneOptions())
        #expect(format.render(try reader.report(for: ReportQuery())).contains(mark))
    }
}
