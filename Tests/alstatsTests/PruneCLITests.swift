import EventStoreInterface
import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// `alstats prune` and `alstats serve`'s `retention` as a user runs them (docs/cli.md, "alstats prune";
/// docs/collector.md, "Retention"): what is deleted, what the report, a backup and a second ingest then say, and the
/// usage errors. Serialized, as the other runs of the built binary.
@Suite(.serialized, .enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
struct PruneCLITests {
    static let day: Int64 = 86_400_000

    /// 400 events, one every 12 hours up to now (real time: the prune cuts by the clock).
    static func lines(now: Int64) -> String {
        (0..<400).map { index in
            NDJSONCodec.line(
                for: MeasurementEvent(
                    id: EventID("p\(index)"), name: EventName.navOut,
                    fields: ["ref": "feed", "success": index % 5 == 0 ? "0" : "1", "type": "app"],
                    timestamp: now - Int64(index) * day / 2))
        }.joined(separator: "\n") + "\n"
    }

    /// The `window` object of `alstats report --format json`'s output.
    static func window(_ output: String) -> JSONObject? {
        guard case .object(let report)? = try? JSONValue.parse(output) else { return nil }
        return report["window"]?.objectValue
    }

    @Test func aPruneDeletesWhatIsOlderThanTheWindowAndTheReportAndIngestSaySo() throws {
        let folder = TemporaryDatabase()
        let now = SystemEventClock().nowMilliseconds()
        try Self.lines(now: now).write(toFile: folder.file("in.ndjson"), atomically: true, encoding: .utf8)
        let run = { (arguments: [String]) in try BuiltAlstats.run(arguments, in: folder.folder) }
        #expect(try run(["ingest", "in.ndjson"]).status == 0)
        // A first open 200 days ago: the install path's events stay (the report's installs), but not in a backup.
        let old = now - 200 * Self.day
        let firstOpen = MeasurementEvent(
            id: EventID("open"), name: EventName.firstOpen, fields: ["attributed": "1"], timestamp: old)
        try (NDJSONCodec.line(for: firstOpen) + "\n").write(
            toFile: folder.file("open.ndjson"), atomically: true, encoding: .utf8)
        #expect(try run(["ingest", "open.ndjson"]).status == 0)
        let before = try run(["report", "--format", "json"]).output
        let dry = try run(["prune", "--keep", "90d", "--dry-run"])
        #expect(dry.status == 0, "\(dry.errors)")
        #expect(dry.output.hasPrefix("would prune alstats.sqlite: "), "\(dry.output)")
        #expect(try run(["report", "--format", "json"]).output == before, "a dry run changes nothing")
        let pruned = try run(["prune", "--keep", "90d"])
        #expect(pruned.status == 0, "\(pruned.errors)")
        let cutoff = RetentionPeriod("90d")!.cutoff(now: now)
        let since = EventTime.rfc3339(milliseconds: cutoff)
        // About 220 events are older than the window, depending on the hour of the day.
        #expect(pruned.output.hasPrefix("pruned alstats.sqlite: "), "\(pruned.output)")
        #expect(pruned.output.contains("raw events since \(since)"))
        #expect(pruned.output.contains("bytes given back to the file system"))
        let report = try run(["report", "--format", "json"]).output
        #expect(Self.window(report)?["raw_events_since"] == .string(since))
        let totals = { (text: String) in (try? JSONValue.parse(text))?.objectValue?["totals"] }
        #expect(totals(report) == totals(before), "the rollups keep every count")
        let installs = { (text: String) in (try? JSONValue.parse(text))?.objectValue?["installs"] }
        #expect(installs(report) == installs(before), "the first open stays")
        #expect(installs(report)?.objectValue?["first_opens"] == .int(1))
        let older = (0..<400).filter { now - Int64($0) * Self.day / 2 < cutoff }.count
        let backup = try run(["backup", "copy"])
        #expect(backup.status == 0, "\(backup.errors)")
        #expect(backup.output.hasPrefix("backed up \(400 - older) events"), "\(backup.output)")
        #expect(backup.errors.contains("was pruned: the backup holds its raw events since \(since) only"))
        // An export too writes the events since the horizon only, on either backend (SQLite wrote the first open).
        let export = try run(["export"])
        #expect(export.status == 0, "\(export.errors)")
        #expect(export.output.split(separator: "\n").count == 400 - older, "\(export.output.suffix(300))")
        #expect(!export.output.contains(#""id":"open""#))
        let again = try run(["ingest", "in.ndjson"])
        #expect(again.status == 0)
        #expect(again.output.contains("(\(400 - older) already stored, \(older) older than the retention horizon"))
        #expect(try run(["report"]).output.contains("raw events since \(since)"))
    }

    @Test(arguments: [
        (["prune", "--keep", "90"], 64), (["prune", "--keep", "0d"], 64),
        (["prune"], 64), (["prune", "--keep", "90d", "--database", "missing.sqlite"], 66),
        (["prune", "--keep", "90d", "--vacuum", "--database", "postgres://nobody@127.0.0.1:1/none"], 64),
    ])
    func aWrongWindowOrOptionIsAUsageError(_ arguments: [String], _ status: Int) throws {
        let folder = TemporaryDatabase()
        let result = try BuiltAlstats.run(arguments, in: folder.folder)
        #expect(Int(result.status) == status, "\(result.errors)")
        #expect(result.output.isEmpty)
    }

    #if Server
    /// The server prunes at start with the `retention` of its config file, as `alstats prune` would.
    @Test func aServerWithRetentionPrunesAtStart() throws {
        let folder = TemporaryDatabase()
        let now = SystemEventClock().nowMilliseconds()
        try Self.lines(now: now).write(toFile: folder.file("in.ndjson"), atomically: true, encoding: .utf8)
        #expect(try BuiltAlstats.run(["ingest", "in.ndjson"], in: folder.folder).status == 0)
        let wrong = try BuiltAlstats.run(["serve", "--retention", "ninety days", "--no-auth"], in: folder.folder)
        #expect(wrong.status == 64 && wrong.errors.contains("--retention must be"), "\(wrong.errors)")
        let config = folder.file("serve.json")
        try #"{"retention": "30d"}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let server = try ServeProcess(database: folder.path, arguments: ["--config", config])
        let since = EventTime.rfc3339(milliseconds: RetentionPeriod("30d")!.cutoff(now: now))
        // The first prune runs as the server starts taking requests: its report says so once it is done.
        let deadline = ContinuousClock.now + .seconds(120)
        var window: JSONObject?
        while ContinuousClock.now < deadline {
            window = server.request("GET", "/api/report", key: "r1").flatMap { Self.window($0.body) }
            if window?["raw_events_since"] != nil { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(window?["raw_events_since"] == .string(since))
        #expect(server.stop() == 0)
        let cutoff = RetentionPeriod("30d")!.cutoff(now: now)
        let kept = (0..<400).filter { now - Int64($0) * Self.day / 2 >= cutoff }.count
        let export = try BuiltAlstats.run(["export"], in: folder.folder)
        #expect(export.output.split(separator: "\n").count == kept)
    }
    #endif
}
