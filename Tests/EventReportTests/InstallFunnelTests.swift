import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventReport
@testable import EventStoreInterface

/// The install path in the report (docs/install.md), on a handful of events whose numbers are known: store taps of
/// people by store, installs by platform, the install rate, the lower middle delay, deferred opens also counted as
/// arrivals, first opens attributed and organic; in every format and on the dashboard's link page. (``ReportTests``
/// checks the same section against ``LinkOracle`` for every window and filter.)
struct InstallFunnelTests {
    static let start: Int64 = 1_763_683_200_000

    static func event(_ id: String, _ name: String, _ fields: [String: String], at offset: Int64) -> MeasurementEvent {
        MeasurementEvent(id: EventID(id), name: name, fields: fields, timestamp: start + offset)
    }

    static let events: [MeasurementEvent] = [
        event("h1", "alstats_link_hit", ["slug": "invite", "status": "200", "crawler": "0", "ref": "mail"], at: 0),
        event("h2", "alstats_link_hit", ["slug": "invite", "status": "200", "crawler": "0"], at: 1),
        event("t1", EventName.linkStore, ["slug": "invite", "platform": "ios", "crawler": "0", "ref": "mail"], at: 2),
        event("t2", EventName.linkStore, ["slug": "invite", "platform": "android", "crawler": "0"], at: 3),
        event("t3", EventName.linkStore, ["slug": "invite", "platform": "android", "crawler": "1"], at: 4),
        event("t4", EventName.linkStore, ["slug": "invite", "platform": "ios", "crawler": "0"], at: 5),
        event("i1", EventName.linkInstall, ["slug": "invite", "platform": "ios", "delay_ms": "90000"], at: 6),
        event("i2", EventName.linkInstall, ["slug": "invite", "platform": "android", "delay_ms": "30000"], at: 7),
        event("i3", EventName.linkInstall, ["slug": "sale", "platform": "android", "delay_ms": "5000"], at: 8),
        event(
            "d1", EventName.navIn,
            [FieldName.targetURL: "https://go.example.com/l/invite?ref=mail", FieldName.deferred: "1", "ref": "mail"],
            at: 9),
        event("a1", EventName.navIn, [FieldName.targetURL: "https://go.example.com/l/invite"], at: 10),
        event("f1", EventName.firstOpen, ["attributed": "1"], at: 11),
        event("f2", EventName.firstOpen, ["attributed": "0"], at: 12),
        event("f3", EventName.firstOpen, [:], at: 13),
    ]

    static func report(_ query: ReportQuery = ReportQuery()) throws -> Report {
        let database = try ReportDatabase(events: events, publicURLs: ["https://go.example.com"])
        return try ReportReader(store: database.store).report(for: query)
    }

    @Test func eachLinkCountsItsStoreTapsInstallsAndDeferredOpensWithTheirRateAndMedianDelay() throws {
        let report = try Self.report()
        let invite = try #require(report.links.first { $0.slug == "invite" })
        #expect(invite.storeTaps == .init(ios: 2, android: 1), "a crawler's tap is not counted")
        #expect(invite.installs == .init(ios: 1, android: 1) && invite.installRate == 2.0 / 3.0)
        #expect(invite.medianDelayMilliseconds == 30_000, "the lower of the two middle delays")
        #expect(invite.deferredOpens == 1 && invite.arrivals == 2, "a deferred open is an arrival too")
        let sale = try #require(report.links.first { $0.slug == "sale" }, "a link with installs only is listed")
        #expect(sale.hits == 0 && sale.installRate == nil && sale.medianDelayMilliseconds == 5_000)
        #expect(report.firstOpens == .init(firstOpens: 3, attributed: 1) && report.firstOpens.organic == 2)
        let mail = try Self.report(ReportQuery(ref: "mail"))
        let filtered = try #require(mail.links.first { $0.slug == "invite" })
        #expect(filtered.storeTaps == .init(ios: 1) && filtered.installs.total == 0 && filtered.deferredOpens == 1)
        #expect(mail.firstOpens.firstOpens == 0, "a first open has no ref")
    }

    @Test func everyFormatShowsTheInstallPath() throws {
        let report = try Self.report()
        let json = try JSONValue.parse(ReportFormat.json.render(report))
        guard case .array(let links) = json["links"] else { throw Failure("no links") }
        let invite = try #require(links.first { $0["slug"] == "invite" })
        #expect(invite["store_taps"] == ["ios": 2, "android": 1] && invite["installs"] == ["ios": 1, "android": 1])
        #expect(invite["deferred_opens"] == 1 && invite["median_delay_ms"] == 30_000)
        #expect(json["installs"] == ["first_opens": 3, "attributed": 1, "organic": 2])
        let table = ReportFormat.table.render(report)
        #expect(table.contains("Installs from hosted links") && table.contains("66.7%") && table.contains("30 s"))
        #expect(table.contains("  attributed      1   33.3%"))
        #expect(ReportFormat.markdown.render(report).contains("| invite | 3 | 2 | 1 | 2 | 66.7% | 1 | 30 s |"))
        let csv = ReportFormat.csv.render(report)
        #expect(csv.contains("links,invite,store_taps_android,1\r\n") && csv.contains("installs,,organic,2\r\n"))
        let html = ReportFormat.html.render(report)
        #expect(html.contains("id=\"fig-installs\"") && html.contains("First opens in the window: 3"))
        #expect(ReportText.duration(5_000) == "5 s" && ReportText.duration(93_784_000) == "1 d 2 h")
        #expect(ReportText.duration(3_600_000 + 60_000) == "1 h 1 min" && ReportText.duration(999) == "999 ms")
    }

    @Test func theLinkPageDrawsTheFunnelBesideTheArrivalsOfPeopleWithTheApp() throws {
        let days = QueryResult(columns: ["day", "hits"], rows: [])
        let page = DashboardPage(view: DashboardView(parameters: [:]))
            .renderLink(slug: "invite", report: try Self.report(), days: days, scriptNonce: "n")
        #expect(page.contains("id=\"fig-link-funnel\""))
        for row in [
            "<th scope=\"row\">page views</th><td>2</td>", "<th scope=\"row\">store taps</th><td>3</td>",
            "<th scope=\"row\">installs</th><td>2</td>", "<th scope=\"row\">deferred opens</th><td>1</td>",
            "<th scope=\"row\">arrivals with the app</th><td>1</td>",
        ] {
            #expect(page.contains(row), "\(row)")
        }
        #expect(page.contains("<span class=\"number\" id=\"link-install-rate\">66.7%</span>"))
    }
}
