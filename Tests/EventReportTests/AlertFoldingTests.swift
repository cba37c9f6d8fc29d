import EventReport
import EventStoreInterface
import MeasurementEvents
import Testing

/// One alert per cause (docs/cli.md, "One alert per cause") on crafted rows: the alerts on `all` and `ref` that
/// the alerted source hosts explain are folded under them; the others stay causes.
@Suite struct AlertFoldingTests {
    /// `attempts` outbound navigations of `host` and `ref`, `succeeded` of them successful, the rest `open_failed`.
    static func navigations(host: String, ref: String, attempts: Int, succeeded: Int) -> [ReportRows.Group] {
        AlertRuleTests.navigations(
            host: host, ref: ref, attempts: attempts, succeeded: succeeded,
            failures: attempts > succeeded ? ["open_failed": attempts - succeeded] : [:])
    }

    static func name(_ alert: Report.Alert) -> String {
        alert.dimension == .all ? "all" : "\(alert.dimension.rawValue)=\(alert.value ?? "")"
    }

    static func alerts(now: [ReportRows.Group], before: [ReportRows.Group]) -> [Report.Alert] {
        AlertRule().alerts(now: ReportRows(groups: now, buckets: []), before: ReportRows(groups: before, buckets: []))
    }

    @Test func oneBrokenHostSendingTwoRefsIsOneCauseWithBothRefsAndAllUnderIt() {
        // video.example.org falls from 97% to 37% in both the refs it sends; news.example holds at 90%.
        let before =
            Self.navigations(host: "video.example.org", ref: "feed", attempts: 300, succeeded: 290)
            + Self.navigations(host: "video.example.org", ref: "share", attempts: 300, succeeded: 290)
            + Self.navigations(host: "news.example", ref: "feed", attempts: 300, succeeded: 270)
            + Self.navigations(host: "news.example", ref: "share", attempts: 300, succeeded: 270)
        let now =
            Self.navigations(host: "video.example.org", ref: "feed", attempts: 300, succeeded: 100)
            + Self.navigations(host: "video.example.org", ref: "share", attempts: 300, succeeded: 120)
            + Self.navigations(host: "news.example", ref: "feed", attempts: 300, succeeded: 268)
            + Self.navigations(host: "news.example", ref: "share", attempts: 300, succeeded: 271)
        let alerts = Self.alerts(now: now, before: before)
        #expect(alerts.map(Self.name) == ["source_host=video.example.org"])
        let cause = try! #require(alerts.first)
        // In the order of cost, as they were listed: all (30.1 points of 1,200), feed (32 of 600), share (28.2 of 600).
        #expect(cause.explains.map(Self.name) == ["all", "ref=feed", "ref=share"])
        #expect(cause.explains.allSatisfy { $0.explains.isEmpty })
        // The explained alerts keep their own figures: feed is both hosts' feed.
        #expect(cause.explains[1].now == Report.Alert.Period(attempts: 600, succeeded: 368))
        #expect(cause.explains[1].before == Report.Alert.Period(attempts: 600, succeeded: 560))
        #expect(cause.explains[1].topFailure?.error == "open_failed")
    }

    @Test func aRefThatBreaksOnItsOwnWhileItsHostsAreFineStaysACause() {
        // "mail" falls from 90% to 30% on both hosts, too little of either to make the host fall 10 points; shop
        // breaks on its own ref "ad". Without shop's navigations, "mail" still falls: a cause of its own.
        func traffic(mail: Int, shop: Int) -> [ReportRows.Group] {
            Self.navigations(host: "news.example", ref: "feed", attempts: 900, succeeded: 810)
                + Self.navigations(host: "news.example", ref: "mail", attempts: 100, succeeded: mail)
                + Self.navigations(host: "blog.example", ref: "feed", attempts: 900, succeeded: 810)
                + Self.navigations(host: "blog.example", ref: "mail", attempts: 100, succeeded: mail)
                + Self.navigations(host: "shop.example", ref: "ad", attempts: 200, succeeded: shop)
        }
        let alerts = Self.alerts(now: traffic(mail: 30, shop: 40), before: traffic(mail: 90, shop: 180))
        // all falls 11.8 points, 6 without shop: shop's too.
        #expect(alerts.map(Self.name) == ["source_host=shop.example", "ref=mail"])
        #expect(alerts.map { $0.explains.map(Self.name) } == [["all", "ref=ad"], []])
        #expect(alerts[1].now == Report.Alert.Period(attempts: 200, succeeded: 60))
    }

    @Test func twoBrokenHostsEachKeepTheirOwnRefs() {
        // x.example sends "x1", y.example "y1"; both fall. Neither host alone explains all (without either, the
        // other still drags it down), so all goes under the first host in order, x (the costlier).
        func traffic(x: Int, y: Int) -> [ReportRows.Group] {
            Self.navigations(host: "x.example", ref: "x1", attempts: 600, succeeded: x)
                + Self.navigations(host: "y.example", ref: "y1", attempts: 400, succeeded: y)
                + Self.navigations(host: "steady.example", ref: "s1", attempts: 400, succeeded: 360)
        }
        let alerts = Self.alerts(now: traffic(x: 200, y: 150), before: traffic(x: 570, y: 380))
        #expect(alerts.map(Self.name) == ["source_host=x.example", "source_host=y.example"])
        #expect(alerts.map { $0.explains.map(Self.name) } == [["all", "ref=x1"], ["ref=y1"]])
    }

    @Test func allGoesUnderTheHostWhoseRemovalAloneClearsItThoughAnotherComesFirst() {
        // many.example falls 15 points on 1,000 navigations (the costlier alert), few.example 60 on 200. Without
        // many alone, all still falls 15 points; without few alone, 9.4: all is few's.
        func traffic(many: Int, few: Int) -> [ReportRows.Group] {
            Self.navigations(host: "many.example", ref: "m", attempts: 1_000, succeeded: many)
                + Self.navigations(host: "few.example", ref: "f", attempts: 200, succeeded: few)
                + Self.navigations(host: "steady.example", ref: "s", attempts: 600, succeeded: 540)
        }
        let alerts = Self.alerts(now: traffic(many: 800, few: 70), before: traffic(many: 950, few: 190))
        #expect(alerts.map(Self.name) == ["source_host=many.example", "source_host=few.example"])
        #expect(alerts.map { $0.explains.map(Self.name) } == [["ref=m"], ["all", "ref=f"]])
    }

    @Test func everyFormatShowsTheExplainedAlertsUnderTheirCause() throws {
        let before =
            Self.navigations(host: "video.example.org", ref: "feed", attempts: 300, succeeded: 290)
            + Self.navigations(host: "news.example", ref: "feed", attempts: 300, succeeded: 270)
        let now =
            Self.navigations(host: "video.example.org", ref: "feed", attempts: 300, succeeded: 100)
            + Self.navigations(host: "news.example", ref: "feed", attempts: 300, succeeded: 268)
        let query = ReportQuery(since: 7_000, until: 14_000)
        let report = ReportBuilder().report(
            from: ReportRows(groups: now, buckets: []), query: query,
            comparedWith: ReportRows(groups: before, buckets: []),
            query: try #require(ReportComparison.previous.comparedQuery(for: query)))
        #expect(report.alerts?.map(Self.name) == ["source_host=video.example.org"])

        let table = ReportFormat.table.render(report).split(separator: "\n").map(String.init)
        let heading = try #require(table.firstIndex { $0.hasPrefix("Alerts") })
        #expect(table[heading + 2].hasPrefix("  source_host video.example.org"))
        #expect(table[heading + 3].hasPrefix("  \u{21B3} all "), "\(table[heading + 3])")
        #expect(table[heading + 4].hasPrefix("  \u{21B3} ref feed "), "\(table[heading + 4])")
        #expect(table[heading + 5].contains("explained by the source host above"))

        let markdown = ReportFormat.markdown.render(report)
        #expect(markdown.contains("| source_host video.example.org | nav_out success |"))
        #expect(markdown.contains("| \u{21B3} ref feed | nav_out success |"))

        let csv = ReportFormat.csv.render(report)
        #expect(csv.contains("alerts,all,explained_by,source_host:video.example.org\r\n"))
        #expect(csv.contains("alerts,ref:feed,explained_by,source_host:video.example.org\r\n"))

        let json = try JSONValue.parse(ReportFormat.json.render(report))
        guard case .array(let alerts)? = json["alerts"], case .array(let explained)? = alerts.first?["explains"] else {
            throw Failure("no alerts with explains in the JSON")
        }
        #expect(alerts.count == 1)
        #expect(explained.map { $0["dimension"] } == ["all", "ref"])

        // The HTML page: the explained alerts in a list inside their cause's item.
        let html = ReportFormat.html.render(report)
        let cause = try #require(html.range(of: "<li class=\"cause\">source host video.example.org"))
        let nested = try #require(html.range(of: "<ul class=\"explained\">"))
        let ref = try #require(html.range(of: "<li class=\"explained\">ref feed"))
        #expect(cause.upperBound < nested.lowerBound && nested.upperBound < ref.lowerBound)
        #expect(html.contains("<h2>1 alert: success fell against the previous period</h2>"))
    }
}
