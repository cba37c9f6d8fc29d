import EventStoreInterface
import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// `alstats alerts`: the causes of a window, exit 0 without and 3 with, for cron jobs and CI steps.
struct AlertsCLITests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theLastDayAgainstTheOneBeforeExits3WithOneCauseAndTheRestUnderIt() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        let database = try ReportDatabase(
            events: BrokenHostTraffic.events(endingAt: now, brokenHoursAgo: 6, healthyHoursAgo: 30))
        let text = try BuiltAlstats.run(["alerts", "--database", database.path])
        #expect(text.status == 3, "\(text.errors)")
        let lines = text.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("1 alert in events from ") == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("- source host video.example.org: outbound success 30.0%") == true)
        #expect(lines.contains { $0.hasPrefix("  \u{21B3} all outbound navigations: ") })
        #expect(lines.contains { $0.hasPrefix("  \u{21B3} ref feed: ") })
        #expect(lines.contains { $0.hasPrefix("  \u{21B3} ref share: ") })

        let json = try BuiltAlstats.run(["alerts", "--database", database.path, "--format", "json"])
        #expect(json.status == 3, "\(json.errors)")
        let value = try JSONValue.parse(json.output)
        guard case .array(let alerts)? = value["alerts"], case .array(let explained)? = alerts.first?["explains"] else {
            throw CLIFailure("no alerts with explains: \(json.output)")
        }
        #expect(alerts.count == 1 && alerts.first?["value"] == "video.example.org")
        #expect(explained.count == 3)
        #expect(value["previous"]?["until"] == value["window"]?["since"], "compared with the 24 hours before")
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func aWindowWithoutAlertsExits0AndBadOptionsOrAMissingDatabaseAsEveryCommandDoes() throws {
        let end = EventTime.milliseconds(timeOrDate: "2025-11-17")!
        let database = try ReportDatabase(
            events: BrokenHostTraffic.events(endingAt: end, brokenHoursAgo: 30, healthyHoursAgo: 54))
        // The day that broke, against the day before it: the alert. The day before, against its own: none.
        let broken = try BuiltAlstats.run([
            "alerts", "--database", database.path, "--since", "2025-11-15T12:00:00Z", "--until", "2025-11-16T12:00:00Z",
        ])
        #expect(broken.status == 3, "\(broken.output)\(broken.errors)")
        let calm = try BuiltAlstats.run(["alerts", "--database", database.path, "--until", "2025-11-15T12:00:00Z"])
        #expect(calm.status == 0, "\(calm.output)\(calm.errors)")
        #expect(calm.output.hasPrefix("no alerts: nothing fell significantly in events from 2025-11-14T12:00:00.000Z"))
        let calmJSON = try BuiltAlstats.run([
            "alerts", "--database", database.path, "--until", "2025-11-15T12:00:00Z", "--format", "json",
        ])
        #expect(calmJSON.status == 0)
        #expect(try JSONValue.parse(calmJSON.output)["alerts"] == .array([]))

        let bad = try BuiltAlstats.run(["alerts", "--database", database.path, "--since", "yesterday"])
        #expect(bad.status == 64 && bad.errors.contains("--since 'yesterday'"), "\(bad.errors)")
        let backwards = try BuiltAlstats.run([
            "alerts", "--database", database.path, "--since", "2025-11-16", "--until", "2025-11-15",
        ])
        #expect(backwards.status == 64)
        // Past the year 9999 in UTC: its window was printed as 10000-01-01T... before.
        let late = try BuiltAlstats.run([
            "alerts", "--database", database.path, "--since", "9999-12-31T00:00:00Z", "--until",
            "9999-12-31T23:59:59-01:00",
        ])
        #expect(late.status == 64 && late.errors.contains("outside the years 0001 to 9999"), "\(late.errors)")
        let missing = try BuiltAlstats.run(["alerts", "--database", database.path + ".missing"])
        #expect(missing.status == 66, "\(missing.errors)")
    }
}
