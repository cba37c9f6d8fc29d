import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventReport
@testable import EventStoreInterface

struct ReportTests {
    static let events = generatedEvents(count: 6_000, seed: 7)
    /// The same with hosted link hits and arrivals, for the links section.
    static let eventsWithLinks = events + generatedLinkEvents(count: 4_000, seed: 8)
    // 2026-03-22T00:00:00Z: the window spans the March DST change in Europe.
    static let start: Int64 = 1_774_137_600_000

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var query: ReportQuery
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "everything in UTC", query: ReportQuery()),
        Case(
            name: "a window whose edges fall inside buckets",
            query: ReportQuery(
                since: start + 2 * 86_400_000 + 7 * 60_000 + 123, until: start + 9 * 86_400_000 + 14 * 60_000 + 999)),
        Case(
            name: "a window inside one bucket",
            query: ReportQuery(since: start + 3_600_000 + 60_000, until: start + 3_600_000 + 600_000)),
        Case(name: "a window that starts on a bucket edge", query: ReportQuery(since: start + 900_000 * 40)),
        Case(name: "filtered by ref", query: ReportQuery(ref: "feed")),
        Case(name: "filtered by a ref with emoji", query: ReportQuery(ref: "émoji 🎉")),
        Case(name: "filtered by referer app", query: ReportQuery(refererApp: "Facebook")),
        Case(
            name: "both filters and a window",
            query: ReportQuery(
                since: start + 86_400_000, until: start + 5 * 86_400_000, ref: "search", refererApp: "Messenger")),
        Case(
            name: "days in Europe/Paris across the DST change",
            query: ReportQuery(timeZone: ReportTimeZone("Europe/Paris")!)),
        Case(name: "days at +05:30", query: ReportQuery(timeZone: ReportTimeZone("+05:30")!)),
        Case(
            name: "days in America/St_Johns (-02:30 in summer)",
            query: ReportQuery(timeZone: ReportTimeZone("America/St_Johns")!)),
        Case(name: "lists cut to the top 2", query: ReportQuery(top: 2)),
        Case(name: "filtered by source host", query: ReportQuery(sourceHost: "news.example.org")),
        Case(name: "filtered by a hosted link", query: ReportQuery(link: "invite")),
        Case(
            name: "a link, a ref, a window with partial buckets and days in Europe/Paris",
            query: ReportQuery(
                since: start + 86_400_000 + 7 * 60_000 + 5, until: start + 8 * 86_400_000 - 3 * 60_000, ref: "feed",
                link: "promo", timeZone: ReportTimeZone("Europe/Paris")!)),
        Case(
            name: "a source host, a referer app and a window",
            query: ReportQuery(
                since: start + 2 * 86_400_000 + 1, until: start + 6 * 86_400_000 + 450_000, refererApp: "OnlyOutbound",
                sourceHost: "example.com")),
        Case(name: "a source host and a link: nothing", query: ReportQuery(sourceHost: "example.com", link: "invite")),
        Case(name: "nothing in the window", query: ReportQuery(since: 0, until: 1_000)),
    ]

    @Test(arguments: cases)
    func theStoreReportEqualsAnIndependentComputationFromTheEvents(_ testCase: Case) throws {
        let database = try ReportDatabase(events: Self.eventsWithLinks, publicURLs: [LinkOracle.publicURL])
        let report = try ReportReader(store: database.store).report(for: testCase.query)
        var expected = ReportOracle.report(Self.eventsWithLinks, query: testCase.query)
        expected.links = LinkOracle.links(
            Self.eventsWithLinks, query: testCase.query, publicURLs: [LinkOracle.publicURL])
        expected.firstOpens = LinkOracle.firstOpens(Self.eventsWithLinks, query: testCase.query)
        #expect(report.links == expected.links)
        #expect(report.firstOpens == expected.firstOpens)
        #expect(report.totals == expected.totals)
        #expect(report.navigation == expected.navigation)
        #expect(report.backNavigation == expected.backNavigation)
        #expect(report.refererApps == expected.refererApps)
        #expect(report.refCategories == expected.refCategories)
        #expect(report.daily == expected.daily)
        #expect(report.completeness == expected.completeness)
        #expect(report == expected)
    }

    @Test func completenessIncludesTheStoresLossCounts() throws {
        let database = try ReportDatabase(events: Array(Self.events.prefix(100)))
        try database.store.recordLosses([.bufferFull: 3, .tooManyFields: 2])
        let report = try ReportReader(store: database.store).report(for: ReportQuery())
        let rejectedLinks = report.completeness.byReason.filter { $0.key.hasPrefix("applink_rejected:") }.values.reduce(
            0, +)
        #expect(report.completeness.byReason["buffer_full"] == 3)
        #expect(report.completeness.byReason["too_many_fields"] == 2)
        #expect(report.completeness.dropped == 3)
        #expect(report.completeness.rejected == 2 + rejectedLinks)
    }

    @Test func theReportReadsOnlyRollupsAndEdgeEvents() throws {
        // With the raw events of whole buckets deleted, a report over whole buckets is unchanged: it
        // never read them. (The rollups are the source for the inside of the window.)
        let database = try ReportDatabase(events: Self.events)
        let query = ReportQuery(since: Self.start + 900_000, until: Self.start + 10 * 86_400_000)
        let before = try ReportReader(store: database.store).report(for: query)
        try database.store.withConnection { store throws in
            try store.connection.execute(
                "DELETE FROM events WHERE ts_ms >= \(Self.start + 900_000) AND ts_ms < \(Self.start + 10 * 86_400_000)")
        }
        let after = try ReportReader(store: database.store).report(for: query)
        #expect(after == before)
        #expect(after.totals.events > 0)
    }

    @Test(arguments: ["UTC", "Z", "+05:30", "-08:00", "Europe/Paris", "Asia/Kathmandu"])
    func acceptsTimeZoneNamesAndOffsets(_ text: String) {
        #expect(ReportTimeZone(text) != nil)
    }

    @Test(arguments: ["", "Mars/Olympus", "+5:30", "+05:07", "+25:00", "05:30", "Asia/Tokyo\u{0}x", "Asia/Tokyo "])
    func rejectsWhatIsNotATimeZone(_ text: String) {
        #expect(ReportTimeZone(text) == nil)
    }

    @Test func datesAreLocalMidnightInTheZone() throws {
        let paris = try #require(ReportTimeZone("Europe/Paris"))
        #expect(paris.milliseconds(of: "2026-03-29") == 1_774_738_800_000)  // 2026-03-28T23:00:00Z (UTC+1)
        #expect(paris.milliseconds(of: "2026-03-30") == 1_774_821_600_000)  // 2026-03-29T22:00:00Z (UTC+2)
        #expect(paris.date(of: 1_774_821_600_000) == "2026-03-30")
        #expect(ReportTimeZone.utc.milliseconds(of: "2026-03-22T01:02:03.5Z") == 1_774_141_323_500)
        #expect(ReportTimeZone.utc.milliseconds(of: "yesterday") == nil)
    }

    /// A time past the supported years (stored before they were enforced) is dated at their edge in any zone,
    /// never a trap: `Int64.max` at UTC+1 overflowed, and `alstats report --tz +01:00` stopped.
    @Test(arguments: ["+01:00", "-01:00", "Pacific/Kiritimati", "UTC"])
    func timesPastTheSupportedYearsAreDatedAtTheirEdge(zone: String) throws {
        let timeZone = try #require(ReportTimeZone(zone))
        #expect(timeZone.date(of: .max).hasPrefix("9999-12-3") || timeZone.date(of: .max).hasPrefix("10000-01-01"))
        #expect(timeZone.date(of: .min).hasPrefix("0001-01-01") || timeZone.date(of: .min).hasPrefix("0000-12-31"))
    }
}
