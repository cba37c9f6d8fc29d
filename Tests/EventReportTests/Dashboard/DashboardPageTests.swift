import EventStoreInterface
import Foundation
import MeasurementEvents
import Testing

@testable import EventReport

/// The dashboard's state in its URL, and its page: links that add and remove filters, the period picker,
/// the script allowed by nonce only, refresh only while the window includes now, hostile values as text.
struct DashboardPageTests {
    @Test func theViewReadsItsURLAndWritesItBackWithoutDefaults() {
        let view = DashboardView(parameters: ["period": "30d", "ref": "mail", "tz": "Europe/Paris", "link": ""])
        #expect(view.period == .month)
        #expect(view.filters == [.ref: "mail"])
        #expect(view.compare)
        #expect(view.href() == "/report?period=30d&tz=Europe%2FParis&ref=mail")
        #expect(DashboardView(parameters: [:]).href() == "/report")
        #expect(DashboardView(parameters: [:]).period == .week)
        let custom = DashboardView(parameters: ["since": "2025-11-10", "until": "2025-11-17", "compare": "none"])
        #expect(custom.period == .custom)
        #expect(!custom.compare)
        #expect(!custom.includesNow)
        #expect(custom.href() == "/report?since=2025-11-10&until=2025-11-17&compare=none")
        // A period named in the URL wins over dates left in it.
        #expect(DashboardView(parameters: ["period": "today", "since": "2025-11-10"]).since == nil)
    }

    @Test func filtersAreAddedAndRemovedOneDimensionAtATime() {
        let view = DashboardView(parameters: ["ref": "mail"])
        let both = view.adding(.sourceHost, "shop example.com")
        #expect(both.href() == "/report?ref=mail&source_host=shop%20example.com")
        #expect(both.removing(.ref).href() == "/report?source_host=shop%20example.com")
        #expect(both.adding(.ref, "feed").filters[.ref] == "feed")
        #expect(both.with(period: .all).href() == "/report?period=all&ref=mail&source_host=shop%20example.com")
    }

    @Test func periodsEndNowAndTodayStartsAtLocalMidnight() throws {
        let now: Int64 = 1_764_324_000_000  // 2025-11-28T10:00:00Z
        let paris = try #require(ReportTimeZone("Europe/Paris"))
        let today = try #require(DashboardView(parameters: ["period": "today"]).window(now: now, zone: paris))
        #expect(today.since == 1_764_284_400_000)  // 2025-11-27T23:00:00Z, midnight in Paris
        #expect(today.until == now)
        let week = try #require(DashboardView(parameters: [:]).window(now: now, zone: .utc))
        #expect(week.until - week.since == 7 * 86_400_000)
        #expect(DashboardView(parameters: ["period": "all"]).window(now: now, zone: .utc) == nil)
        #expect(DashboardView(parameters: ["since": "2025-11-01"]).window(now: now, zone: .utc) == nil)
    }

    @Test func rowsLinkToTheirFilterAndChipsToTheViewWithoutIt() throws {
        let report = try Self.report()
        let view = DashboardView(parameters: ["ref": "feed"])
        let page = DashboardPage(view: view).render(report, scriptNonce: "n0nce")
        #expect(page.contains(#"<a class="filter" href="/report?ref=feed&amp;referer_app=Mail">Mail</a>"#))
        #expect(page.contains(#"<a class="filter" href="/report?ref=feed&amp;source_host=news.example">"#))
        #expect(page.contains(#"class="chip" data-dimension="ref" href="/report""#))
        #expect(page.contains(#"<a href="/report?period=30d&amp;ref=feed">30 days</a>"#))
        #expect(page.contains(#"<a href="/report?ref=feed" aria-current="page">7 days</a>"#))
        // The script runs by nonce only, and may fetch from its own origin only.
        #expect(page.contains("script-src 'nonce-n0nce'; connect-src 'self'"))
        #expect(page.contains(#"<script nonce="n0nce">"#))
        #expect(page.contains(#"data-api="/api/report?period=7d&amp;ref=feed&amp;compare=previous""#))
        #expect(page.contains(#"data-part="?ref=feed&amp;part=main""#))
        // The static report runs no script at all.
        #expect(!ReportFormat.html.render(report).contains("<script"))
        #expect(ReportFormat.html.render(report).contains("content=\"default-src 'none'; style-src 'unsafe-inline'\""))
    }

    @Test func aWindowThatEndsInThePastDoesNotRefresh() throws {
        let view = DashboardView(parameters: ["since": "2025-11-01", "until": "2025-11-08"])
        let main = DashboardPage(view: view).renderMain(try Self.report())
        #expect(main.hasPrefix("<main id=\"dashboard\">"))
        #expect(!main.contains("data-refresh"))
        #expect(
            DashboardPage(view: DashboardView(parameters: [:])).renderMain(try Self.report())
                .contains("data-refresh=\"30\""))
    }

    @Test func hostileFilterValuesAreTextInChipsFormsAndLinks() throws {
        let hostile = "\"><script>window.__pwned=1</script>"
        let view = DashboardView(parameters: ["ref": hostile, "tz": hostile])
        let page = DashboardPage(view: view).render(try Self.report(), scriptNonce: "n")
        #expect(page.components(separatedBy: "<script").count == 2, "only the page's own script")
        #expect(!page.contains("window.__pwned=1</script>"))
        #expect(page.contains("&quot;&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;"))
        #expect(page.contains("ref=%22%3E%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E"))
    }

    @Test func aLinkPageShowsItsFunnelAndEveryDayOfItsSeries() throws {
        let days = QueryResult(
            columns: ["day", "slug", "hits", "visitors", "crawler_fetches", "not_found", "arrivals", "arrival_rate"],
            rows: [
                [.string("2025-11-03"), .string("invite"), .int(4), .int(3), .int(1), .int(0), .int(2), .double(0.5)],
                [.string("2025-11-06"), .string("invite"), .int(2), .int(2), .int(0), .int(1), .int(0), .null],
            ])
        let page = DashboardPage(view: DashboardView(parameters: [:]))
            .renderLink(slug: "invite", report: try Self.report(), days: days, scriptNonce: "n")
        #expect(page.contains("<title>alstats · invite</title>"))
        #expect(page.contains(#"<a href="/report/links/invite?period=30d">30 days</a>"#))
        #expect(LinkDays(days).everyDay().map(\.date) == ["2025-11-03", "2025-11-04", "2025-11-05", "2025-11-06"])
        #expect(page.contains("<th scope=\"row\">2025-11-06</th><td>2</td>"))
    }

    @Test func aLinkPagePollsTheReportOfItsLinkAloneOverItsPeriod() throws {
        let view = DashboardView(parameters: ["period": "30d", "tz": "Europe/Paris", "ref": "mail"])
        let page = DashboardPage(view: view)
        let days = QueryResult(columns: ["day", "hits"], rows: [])
        let html = page.renderLink(slug: "spring sale&co", report: try Self.report(), days: days, scriptNonce: "n")
        let api =
            "/api/report?period=30d&amp;tz=Europe%2FParis&amp;ref=mail&amp;link=spring%20sale%26co"
            + "&amp;compare=previous"
        #expect(html.contains("data-api=\"\(api)\""))
        #expect(page.renderLinkMain(slug: "spring sale&co", report: try Self.report(), days: days).contains(api))
        // The refresh fetches the page's own <main>: its path names the link, its query the rest of the view.
        #expect(html.contains(#"data-part="?period=30d&amp;tz=Europe%2FParis&amp;ref=mail&amp;part=main""#))
        // The dashboard itself polls its view as it is.
        let dashboard = page.render(try Self.report(), scriptNonce: "n")
        #expect(dashboard.contains(#"data-api="/api/report?period=30d&amp;tz=Europe%2FParis&amp;ref=mail&amp;compare"#))
    }

    /// A link's page offers no control that does nothing there: its rows add no filter and it shows no comparison.
    @Test func aLinkPageHasNoRowHintAndNoComparisonToggle() throws {
        let page = DashboardPage(view: DashboardView(parameters: [:]))
        let days = QueryResult(columns: ["day", "hits"], rows: [])
        let link = page.renderLink(slug: "invite", report: try Self.report(), days: days, scriptNonce: "n")
        #expect(!link.contains("Hide the comparison") && !link.contains("click a row"))
        let dashboard = page.render(try Self.report(), scriptNonce: "n")
        #expect(dashboard.contains("Hide the comparison") && dashboard.contains("click a row"))
    }

    /// A card's change is coloured as it is written: a change that rounds to ±0.0 pp (or ±0%) is neutral, not red.
    @Test(arguments: [
        // attempts and successes now, then before; the class of the outbound card's change.
        (102, 51, 100, 50, "delta up"),  // +2%, success ±0.0 pp: the count's rise
        (100, 50, 100, 50, "delta "),  // no change
        (2_000, 1_000, 1_999, 1_000, "delta "),  // +0%, success −0.03 pp: both round to zero
        (100, 40, 100, 50, "delta down"),  // success −10.0 pp
    ])
    func aChangeThatRoundsToZeroIsNeutral(now: Int, nowOK: Int, before: Int, beforeOK: Int, expected: String) {
        func rows(_ attempts: Int, _ succeeded: Int) -> ReportRows {
            ReportRows(
                groups: [
                    ReportRows.Group(name: "al_nav_out", type: "app", success: 1, count: succeeded),
                    ReportRows.Group(name: "al_nav_out", type: "fail", success: 0, count: attempts - succeeded),
                ], buckets: [])
        }
        let report = ReportBuilder().report(
            from: rows(now, nowOK), query: ReportQuery(since: 10, until: 20), comparedWith: rows(before, beforeOK),
            query: ReportQuery(since: 0, until: 10))
        let cards = HTMLRenderer().cardChanges(report)
        #expect(cards.count == 4)
        #expect(cards[2].hasPrefix("<span class=\"\(expected)\">"), "\(cards[2])")
    }

    /// A small report of two hosts, two referer apps and one ref.
    static func report() throws -> Report {
        func group(_ name: String, _ app: String?, _ host: String?, _ success: Int?, _ count: Int) -> ReportRows.Group {
            ReportRows.Group(
                name: name, ref: "feed", refererAppName: app, type: success == 1 ? "app" : "fail", success: success,
                sourceURLHost: host, error: success == 0 ? "timeout" : nil, count: count)
        }
        let rows = ReportRows(
            groups: [
                group("al_nav_in", "Mail", nil, nil, 10), group("al_nav_in", "Notes", nil, nil, 4),
                group("al_nav_out", nil, "news.example", 1, 7), group("al_nav_out", nil, "shop.example", 0, 3),
            ],
            buckets: [])
        return ReportBuilder().report(from: rows, query: ReportQuery())
    }
}
