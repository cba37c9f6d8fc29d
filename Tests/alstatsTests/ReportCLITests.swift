import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// End-to-end runs of the built `alstats` (CI builds it with `swift build --build-tests` first).
struct ReportCLITests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func reportAndQueryWorkOnAPopulatedDatabase() throws {
        let database = try ReportDatabase(events: generatedEvents(count: 800, seed: 21))
        let json = try BuiltAlstats.run(["report", "--database", database.path, "--format", "json", "--tz", "+05:30"])
        #expect(json.status == 0, "\(json.errors)")
        let value = try JSONValue.parse(json.output)
        #expect(value["totals"]?["events"] == .int(800))
        #expect(value["window"]?["timezone"] == "+05:30")
        // An offset west of UTC is read as the option's value (with the default parsing it looked like an option).
        let west = try BuiltAlstats.run(["report", "--database", database.path, "--format", "json", "--tz", "-05:00"])
        #expect(west.status == 0, "\(west.errors)")
        #expect(try JSONValue.parse(west.output)["window"]?["timezone"] == "-05:00")

        let table = try BuiltAlstats.run(
            ["report", "--since", "2026-03-23", "--until", "2026-03-25T12:00:00Z"],
            environment: ["ALSTATS_DATABASE": database.path])
        #expect(table.status == 0, "\(table.errors)")
        #expect(table.output.contains("Referer apps"))
        #expect(!table.output.contains("\u{1B}["), "no colour when the output is not a terminal")

        for format in ["csv", "markdown", "html"] {
            let result = try BuiltAlstats.run([
                "report", "--database", database.path, "--format", format, "--ref", "feed",
            ])
            #expect(result.status == 0)
            #expect(!result.output.isEmpty)
        }
        let list = try BuiltAlstats.run(["query", "--list"])
        #expect(list.status == 0)
        #expect(list.output.contains("daily_funnel"))
        let funnel = try BuiltAlstats.run([
            "query", "daily_funnel", "--database", database.path, "--param", "ref=feed", "--format", "csv",
        ])
        #expect(funnel.status == 0, "\(funnel.errors)")
        #expect(funnel.output.hasPrefix("day,arrivals,nav_out"))
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theDemosSecondWeekComparedWithItsFirstShowsTheBrokenHost() throws {
        let database = try ReportDatabase(events: [])
        let demo = try BuiltAlstats.run([
            "demo", "--in-process", "--events", "8000", "--database", database.path, "--format", "json",
        ])
        #expect(demo.status == 0, "\(demo.errors)")
        #expect(demo.errors.contains("--since 2025-11-10 --until 2025-11-17 --compare previous"), "the hint")
        let week = ["--since", "2025-11-10", "--until", "2025-11-17"]
        let compared = try BuiltAlstats.run(
            ["report", "--database", database.path, "--format", "json", "--compare", "previous"] + week)
        #expect(compared.status == 0, "\(compared.errors)")
        let report = try JSONValue.parse(compared.output)
        let first = try BuiltAlstats.run([
            "report", "--database", database.path, "--format", "json", "--since", "2025-11-03", "--until", "2025-11-10",
        ])
        #expect(report["previous"] == (try JSONValue.parse(first.output)), "previous is the first week on its own")
        let backwards = try BuiltAlstats.run([
            "report", "--database", database.path, "--since", "2025-11-17", "--until", "2025-11-10",
        ])
        #expect(backwards.status == 64 && backwards.errors.contains("is before --since"), "\(backwards.errors)")
        guard case .array(let alerts) = report["alerts"] else { throw CLIFailure("no alerts: \(compared.output)") }
        let video = try #require(alerts.first)
        #expect(video["dimension"] == "source_host" && video["value"] == "video.example.org")
        #expect(video["measure"] == "nav_out_success_rate")
        #expect(video["top_failure"]?["error"] == "open_failed" && video["top_failure"]?["before"] == .int(0))
        #expect(!alerts.contains { $0["value"] == "recipes.example.com" || $0["value"] == "maps.example.com" })
        // One fault, one alert: all and the refs that send people to video.example.org are listed under it.
        #expect(alerts.count == 1, "\(alerts.map { $0["dimension"] })")
        guard case .array(let explained)? = video["explains"] else { throw CLIFailure("no explains: \(video)") }
        #expect(explained.contains { $0["dimension"] == "all" })
        #expect(explained.count >= 3 && explained.allSatisfy { $0["dimension"] == "all" || $0["dimension"] == "ref" })

        // The new filters, with and without the comparison.
        let host = try BuiltAlstats.run(
            [
                "report", "--database", database.path, "--format", "json", "--compare", "previous", "--source-host",
                "video.example.org",
            ] + week)
        #expect(host.status == 0, "\(host.errors)")
        let hostReport = try JSONValue.parse(host.output)
        guard case .array(let hosts) = hostReport["navigation"]?["source_hosts"] else { throw CLIFailure("no hosts") }
        #expect(hosts.count == 1 && hosts.first?["host"] == "video.example.org")
        #expect(hostReport["navigation"]?["attempts"] == hosts.first?["attempts"])
        #expect(hostReport["links"] == .array([]), "hits and arrivals carry no source host")
        let link = try BuiltAlstats.run(
            ["report", "--database", database.path, "--format", "json", "--link", "invite"] + week)
        #expect(link.status == 0, "\(link.errors)")
        let linkReport = try JSONValue.parse(link.output)
        guard case .array(let links) = linkReport["links"] else { throw CLIFailure("no links") }
        #expect(links.count == 1 && links.first?["slug"] == "invite")
        #expect(linkReport["totals"]?["by_name"]?["al_nav_in"] == links.first?["arrivals"])
        #expect(linkReport["navigation"]?["attempts"] == .int(0))
        let table = try BuiltAlstats.run(["report", "--database", database.path, "--compare", "previous"] + week)
        #expect(table.output.contains("Alerts (success fell against the previous period)"))
        #expect(table.output.contains("source_host video.example.org"))
        #expect(table.output.contains("\u{21B3} all "), "the explained alerts under their cause")
        let bad = try BuiltAlstats.run(
            ["report", "--database", database.path, "--compare", "next"] + week)
        #expect(bad.status == 64)
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func usageErrorsExitWith64AndAMissingDatabaseWith66() throws {
        let database = try ReportDatabase(events: [])
        let missing = database.folder.appendingPathComponent("nope.sqlite").path
        let absent = try BuiltAlstats.run(["report", "--database", missing])
        #expect(absent.status == 66)
        #expect(absent.errors.contains("nope.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: missing), "a report must not create a database")
        for arguments in [
            ["report", "--database", database.path, "--tz", "Mars/Olympus"],
            ["report", "--database", database.path, "--since", "yesterday"],
            ["report", "--database", database.path, "--format", "pdf"],
            ["report", "--database", database.path, "--top", "-1"],
            ["query", "--database", database.path, "no_such_query"],
            ["query", "--database", database.path, "daily_funnel", "--param", "bogus=1"],
            ["query", "--database", database.path, "daily_funnel", "--param", "novalue"],
        ] {
            let result = try BuiltAlstats.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.errors)")
            #expect(!result.errors.isEmpty)
        }
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
