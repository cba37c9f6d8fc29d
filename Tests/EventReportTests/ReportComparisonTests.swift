import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventReport
@testable import EventStoreInterface

/// `--compare previous` (docs/cli.md, "Comparison with the previous period") on the SQLite store: `previous` is the
/// report of the previous window run on its own, for every filter and time zone; the rest is the plain report.
struct ReportComparisonTests {
    static let start = ReportTests.start
    static let day: Int64 = 86_400_000

    /// Windows whose previous window has partial buckets and days, every filter, time zones other than UTC.
    static let queries: [ReportQuery] = [
        ReportQuery(since: start + 6 * day, until: start + 12 * day),
        ReportQuery(
            since: start + 5 * day + 7 * 60_000 + 123, until: start + 10 * day + 1_000, ref: "feed",
            timeZone: ReportTimeZone("Europe/Paris")!),
        ReportQuery(since: start + 7 * day, until: start + 11 * day, refererApp: "Facebook", top: 2),
        ReportQuery(
            since: start + 6 * day + 450_000, until: start + 12 * day, sourceHost: "news.example.org",
            timeZone: ReportTimeZone("+05:30")!),
        ReportQuery(
            since: start + 6 * day, until: start + 11 * day + 3, link: "invite",
            timeZone: ReportTimeZone("America/St_Johns")!),
        ReportQuery(
            since: start + 8 * day - 1, until: start + 12 * day, ref: "mail", refererApp: "Facebook", link: "promo"),
    ]

    @Test func previousIsTheReportOfThePreviousWindowOnItsOwnForEveryFilterAndTimeZone() async throws {
        let events = ReportTests.eventsWithLinks
        let database = try ReportDatabase(events: events, publicURLs: [LinkOracle.publicURL])
        let reader = ReportReader(store: database.store)
        for query in Self.queries {
            let compared = try await reader.readReport(for: query, comparison: .previous)
            let since = try #require(query.since)
            let until = try #require(query.until)
            var previousQuery = query
            previousQuery.since = since - (until - since)
            previousQuery.until = since
            let alone = try reader.report(for: previousQuery)
            let previous = try #require(compared.previous)
            #expect(previous == alone, "\(query)")
            #expect(ReportFormat.json.render(previous) == ReportFormat.json.render(alone), "\(query)")
            #expect(previous.totals.events > 0, "\(query): the previous window has events")
            // And it is the right report: the independent computation of that window.
            var expected = ReportOracle.report(events, query: previousQuery)
            expected.links = LinkOracle.links(events, query: previousQuery, publicURLs: [LinkOracle.publicURL])
            expected.firstOpens = LinkOracle.firstOpens(events, query: previousQuery)
            #expect(previous == expected, "\(query)")
            // The rest is the plain report; previous and alerts are added at the end of the JSON.
            var plain = compared
            plain.previous = nil
            plain.alerts = nil
            #expect(plain == (try reader.report(for: query)), "\(query)")
            let json = try JSONValue.parse(ReportFormat.json.render(compared))
            guard case .object(let object) = json else { throw Failure("not an object") }
            #expect(Array(object.keys.suffix(2)) == ["previous", "alerts"])
            #expect(json["previous"] == (try JSONValue.parse(ReportFormat.json.render(alone))))
        }
    }

    @Test func withoutAComparisonTheOutputIsUnchanged() async throws {
        let database = try ReportDatabase(events: Array(ReportTests.events.prefix(500)))
        let reader = ReportReader(store: database.store)
        let query = ReportQuery(since: Self.start, until: Self.start + 12 * Self.day)
        let plain = try await reader.readReport(for: query, comparison: nil)
        #expect(plain.previous == nil && plain.alerts == nil)
        for format in [ReportFormat.json, .table, .markdown, .csv] {
            let text = format.render(plain)
            #expect(!text.contains("previous") && !text.contains("alerts") && !text.contains("Alerts"), "\(format)")
            #expect(!text.contains(" pp)"), "\(format)")
        }
    }

    @Test func theWindowOfAComparison() throws {
        let now: Int64 = 1_764_000_000_000
        let week = ReportComparison.defaultSpan
        let open = try ReportComparison.previous.window(for: ReportQuery(), now: now)
        #expect(open.since == now - week && open.until == now)
        let since = try ReportComparison.previous.window(for: ReportQuery(since: now - 3 * Self.day), now: now)
        #expect(since.until == now)
        let until = try ReportComparison.previous.window(for: ReportQuery(until: now - Self.day), now: now)
        #expect(until.since == now - Self.day - week)
        #expect(throws: ReportComparison.WindowError.self) {
            try ReportComparison.previous.window(for: ReportQuery(since: now, until: now), now: now)
        }
        let previous = ReportComparison.previous.comparedQuery(
            for: ReportQuery(since: 1_000, until: 4_000, ref: "a", sourceHost: "h", link: "l", top: 3))
        #expect(previous == ReportQuery(since: -2_000, until: 1_000, ref: "a", sourceHost: "h", link: "l", top: 3))
    }

    @Test func textFormatsShowTheAlertsFirstAndEachFiguresChange() {
        let now = ReportRows(
            groups: AlertRuleTests.now.groups + [ReportRows.Group(name: EventName.navIn, ref: "ad", count: 110)],
            buckets: [], links: AlertRuleTests.now.links)
        let before = ReportRows(
            groups: AlertRuleTests.before.groups + [ReportRows.Group(name: EventName.navIn, ref: "ad", count: 100)],
            buckets: [], links: AlertRuleTests.before.links)
        let query = ReportQuery(since: 7_000, until: 14_000, top: 10)
        let report = ReportBuilder().report(
            from: now, query: query, comparedWith: before, query: ReportComparison.previous.comparedQuery(for: query)!)
        let table = ReportFormat.table.render(report)
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let alerts = try! #require(lines.firstIndex { $0.hasPrefix("Alerts") })
        let totals = try! #require(lines.firstIndex { $0 == "Totals" })
        #expect(alerts < totals, "the alerts come first")
        #expect(lines[alerts + 2].contains("all") && lines[alerts + 3].contains("source_host shop.example.com"))
        #expect(lines[alerts + 3].contains("open_failed 110 (0 before)"))
        #expect(table.contains("al_nav_in        110 (+10%)"), "\(table)")
        #expect(table.contains("58.6% (\u{2212}31.4 pp)"), "succeeded 258 of 440, 396 before")
        #expect(
            table.contains("shop.example.com   200 (\u{00B1}0%)  70 (\u{2212}61%)  35.0% (\u{2212}55.0 pp)"), "\(table)"
        )
        let markdown = ReportFormat.markdown.render(report)
        #expect(markdown.contains("## Alerts"))
        #expect(markdown.range(of: "## Alerts")!.lowerBound < markdown.range(of: "## Totals")!.lowerBound)
        let csv = ReportFormat.csv.render(report)
        #expect(csv.contains("previous.navigation,,attempts,440\r\n"))
        #expect(csv.contains("alerts,source_host:shop.example.com,top_failure,open_failed\r\n"))
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
