import EventReport
import EventStoreInterface
import Foundation
import MeasurementEvents
import Testing

/// The alert rule of docs/cli.md ("Alerts") on crafted rows: what is flagged, what is not, and the order.
@Suite struct AlertRuleTests {
    /// `count` outbound navigations of `host` and `ref`: `succeeded` of them succeeded, the others failed with the
    /// errors of `failures` (whose counts add up to the failures).
    static func navigations(
        host: String, ref: String, attempts: Int, succeeded: Int, failures: [String: Int]
    ) -> [ReportRows.Group] {
        precondition(failures.values.reduce(0, +) == attempts - succeeded)
        var groups = [
            ReportRows.Group(
                name: EventName.navOut, ref: ref, type: "app", success: 1, sourceURLHost: host, count: succeeded)
        ]
        for (error, count) in failures.sorted(by: { $0.key < $1.key }) {
            groups.append(
                ReportRows.Group(
                    name: EventName.navOut, ref: ref, type: "fail", success: 0, sourceURLHost: host, error: error,
                    count: count))
        }
        return groups
    }

    /// The week before: three hosts at about 90%, each under a ref of its own, and a link opened half the time.
    static let before = ReportRows(
        groups: navigations(
            host: "shop.example.com", ref: "ad", attempts: 200, succeeded: 180, failures: ["no_installed_target": 20])
            + navigations(
                host: "video.example.org", ref: "feed", attempts: 200, succeeded: 180,
                failures: ["no_installed_target": 20])
            + navigations(host: "tiny.example", ref: "rare", attempts: 40, succeeded: 36, failures: ["timeout": 4]),
        buckets: [],
        links: [
            ReportRows.Link(slug: "promo", hits: 300, visitors: 280, crawlerFetches: 9, notFound: 0, arrivals: 150),
            ReportRows.Link(slug: "steady", hits: 300, visitors: 280, crawlerFetches: 9, notFound: 0, arrivals: 150),
        ])

    /// This week: shop.example.com falls from 90% to 35% (an app update: `open_failed`), video.example.org holds
    /// steady, tiny.example falls to 25% on 40 attempts, promo's open rate falls from 50% to 20%.
    static let now = ReportRows(
        groups: navigations(
            host: "shop.example.com", ref: "ad", attempts: 200, succeeded: 70,
            failures: ["no_installed_target": 20, "open_failed": 110])
            + navigations(
                host: "video.example.org", ref: "feed", attempts: 200, succeeded: 178,
                failures: ["no_installed_target": 22])
            + navigations(host: "tiny.example", ref: "rare", attempts: 40, succeeded: 10, failures: ["timeout": 30]),
        buckets: [],
        links: [
            ReportRows.Link(slug: "promo", hits: 300, visitors: 280, crawlerFetches: 9, notFound: 0, arrivals: 60),
            ReportRows.Link(slug: "steady", hits: 310, visitors: 280, crawlerFetches: 9, notFound: 0, arrivals: 150),
        ])

    @Test func aHostThatFallsFrom90To35PercentIsFlaggedWithItsTopFailureAndSteadyOrSmallSlicesAreNot() {
        let alerts = AlertRule().alerts(now: Self.now, before: Self.before)
        let slices = alerts.map { "\($0.dimension.rawValue)=\($0.value ?? "")" }
        // all: 396/440 → 258/440; shop and its ref "ad": 180/200 → 70/200; promo: 150/300 → 60/300. Without shop,
        // all still falls (216/240 → 188/240: tiny.example fell too) and stays a cause; "ad" is shop's alone.
        #expect(slices == ["all=", "source_host=shop.example.com", "link=promo"])
        let shop = try! #require(alerts.first { $0.dimension == .sourceHost })
        #expect(shop.explains.map { "\($0.dimension.rawValue)=\($0.value ?? "")" } == ["ref=ad"])
        #expect(shop.explains.first?.now == Report.Alert.Period(attempts: 200, succeeded: 70))
        #expect(shop.measure == .navOutSuccessRate)
        #expect(shop.now == Report.Alert.Period(attempts: 200, succeeded: 70))
        #expect(shop.before == Report.Alert.Period(attempts: 200, succeeded: 180))
        #expect(abs(shop.now.rate - 0.35) < 1e-12 && abs(shop.before.rate - 0.9) < 1e-12)
        #expect(shop.topFailure == Report.Alert.TopFailure(error: "open_failed", now: 110, before: 0))
        let all = try! #require(alerts.first)
        #expect(all.value == nil)
        #expect(all.now == Report.Alert.Period(attempts: 440, succeeded: 258))
        #expect(all.topFailure?.error == "open_failed", "grew by 110, timeout by 26")
        let promo = try! #require(alerts.last)
        #expect(promo.measure == .openRate && promo.topFailure == nil)
        #expect(promo.now == Report.Alert.Period(attempts: 300, succeeded: 60))
        // Held steady, or under 50 attempts: never listed.
        for absent in ["video.example.org", "feed", "tiny.example", "rare", "steady"] {
            #expect(!alerts.contains { $0.value == absent }, "\(absent)")
        }
    }

    @Test func theJSONHasTheShapeOfTheSpec() throws {
        let alerts = AlertRule().alerts(now: Self.now, before: Self.before)
        let shop = try #require(alerts.first { $0.dimension == .sourceHost })
        #expect(
            shop.json.jsonText()
                == #"{"dimension":"source_host","value":"shop.example.com","measure":"nav_out_success_rate","#
                + #""now":{"attempts":200,"succeeded":70,"rate":0.35},"#
                + #""before":{"attempts":200,"succeeded":180,"rate":0.9},"#
                + #""top_failure":{"error":"open_failed","now":110,"before":0},"#
                + #""explains":[{"dimension":"ref","value":"ad","measure":"nav_out_success_rate","#
                + #""now":{"attempts":200,"succeeded":70,"rate":0.35},"#
                + #""before":{"attempts":200,"succeeded":180,"rate":0.9},"#
                + #""top_failure":{"error":"open_failed","now":110,"before":0},"explains":[]}]}"#)
        #expect(Report.Alert(json: shop.json) == shop, "the JSON reads back as the alert")
        #expect(Report.Alert(json: ["dimension": "source_host", "measure": "nav_out_success_rate"]) == nil)
        let promo = try #require(alerts.last)
        #expect(promo.json["top_failure"] == nil)
        #expect(promo.json["measure"] == "open_rate")
    }

    @Test func theRuleNeedsTenPointsFiftyAttemptsEachAndPBelowOnePercent() {
        let rule = AlertRule()
        typealias Period = Report.Alert.Period
        // Exactly 10 points on large periods: flagged (no rounding at the boundary); 9.9 points: not.
        #expect(
            rule.flags(
                now: Period(attempts: 10_000, succeeded: 8_000), before: Period(attempts: 10_000, succeeded: 9_000)))
        #expect(
            !rule.flags(
                now: Period(attempts: 10_000, succeeded: 8_010), before: Period(attempts: 10_000, succeeded: 9_000)))
        // 49 attempts in one period: not, however far it fell.
        #expect(!rule.flags(now: Period(attempts: 49, succeeded: 0), before: Period(attempts: 500, succeeded: 500)))
        #expect(!rule.flags(now: Period(attempts: 500, succeeded: 0), before: Period(attempts: 49, succeeded: 49)))
        #expect(rule.flags(now: Period(attempts: 50, succeeded: 0), before: Period(attempts: 50, succeeded: 50)))
        // 10 points on 50 attempts each is not significant (z ≈ 1.4, p ≈ 0.16).
        #expect(!rule.flags(now: Period(attempts: 50, succeeded: 40), before: Period(attempts: 50, succeeded: 45)))
        // A rise is never an alert.
        #expect(!rule.flags(now: Period(attempts: 500, succeeded: 500), before: Period(attempts: 500, succeeded: 100)))
        // 90/100 → 70/100: pooled z = 0.2 / √(0.8·0.2·0.02) = 3.5355, two-sided p = erfc(2.5) = 0.000407.
        let p = AlertRule.pValue(
            now: Period(attempts: 100, succeeded: 70), before: Period(attempts: 100, succeeded: 90))
        #expect(abs(p - 0.000_406_952) < 1e-8)
        #expect(
            abs(
                AlertRule.pValue(now: Period(attempts: 50, succeeded: 40), before: Period(attempts: 50, succeeded: 45))
                    - 0.1615) < 1e-3)
    }

    @Test func alertsAreOrderedByTheFallTimesTheAttemptsNow() {
        // a: 60 points on 100 attempts (cost 60); b: 20 points on 1,000 (cost 200); c: 30 points on 400 (cost 120).
        let before = ReportRows(
            groups: Self.navigations(host: "a", ref: "x", attempts: 100, succeeded: 90, failures: ["e": 10])
                + Self.navigations(host: "b", ref: "y", attempts: 1_000, succeeded: 900, failures: ["e": 100])
                + Self.navigations(host: "c", ref: "z", attempts: 400, succeeded: 360, failures: ["e": 40]),
            buckets: [])
        let now = ReportRows(
            groups: Self.navigations(host: "a", ref: "x", attempts: 100, succeeded: 30, failures: ["e": 70])
                + Self.navigations(host: "b", ref: "y", attempts: 1_000, succeeded: 700, failures: ["e": 300])
                + Self.navigations(host: "c", ref: "z", attempts: 400, succeeded: 240, failures: ["e": 160]),
            buckets: [])
        let alerts = AlertRule().alerts(now: now, before: before)
        // all: 1,350/1,500 → 970/1,500, 25.3 points: cost 380. Equal costs: source_host before ref. Each ref is its
        // host's alone, so it is folded under it; all is cleared only without every host, so it goes under the
        // first of them in order.
        func name(_ alert: Report.Alert) -> String { "\(alert.dimension.rawValue)=\(alert.value ?? "")" }
        #expect(alerts.map(name) == ["source_host=b", "source_host=c", "source_host=a"])
        #expect(alerts.map { $0.explains.map(name) } == [["all=", "ref=y"], ["ref=z"], ["ref=x"]])
        let costs = alerts.map(\.cost)
        #expect(costs == costs.sorted(by: >))
    }

    @Test func theTopFailureIsTheErrorThatGrewTheMostAndNoneWhenNoneGrew() {
        let before = ReportRows(
            groups: Self.navigations(
                host: "h", ref: "r", attempts: 500, succeeded: 450, failures: ["a": 10, "b": 40]),
            buckets: [])
        let grew = ReportRows(
            groups: Self.navigations(
                host: "h", ref: "r", attempts: 500, succeeded: 300, failures: ["a": 130, "b": 70]),
            buckets: [])
        #expect(
            AlertRule().alerts(now: grew, before: before).first?.topFailure
                == Report.Alert.TopFailure(error: "a", now: 130, before: 10))
        // The same failures, fewer attempts: the rate fell, no reason grew.
        let before2 = ReportRows(
            groups: Self.navigations(host: "h", ref: "r", attempts: 1_000, succeeded: 900, failures: ["a": 100]),
            buckets: [])
        let fewer = ReportRows(
            groups: Self.navigations(host: "h", ref: "r", attempts: 200, succeeded: 100, failures: ["a": 100]),
            buckets: [])
        let alerts = AlertRule().alerts(now: fewer, before: before2)
        #expect(!alerts.isEmpty)
        #expect(alerts.allSatisfy { $0.topFailure == nil })
    }
}
