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
