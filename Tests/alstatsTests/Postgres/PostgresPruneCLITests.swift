#if Server

import EventStoreInterface
import Foundation
import MeasurementEvents
import PostgresTestSupport
import TestSupport
import Testing

/// `alstats prune` against a real PostgreSQL server, as a user runs it: the same events ingested into PostgreSQL and
/// into an SQLite file, pruned with the same window, give byte-identical report JSON, before and after, and on
/// PostgreSQL whole months are dropped. Serialized, as the other runs of the built binary.
@Suite(.serialized)
struct PostgresPruneCLITests {
    @Test(.enabled(if: PostgresTestDatabase.shouldRun && BuiltAlstats.shouldRun))
    func aPruneOnPostgresDropsMonthsAndLeavesTheReportOfTheSQLiteFile() async throws {
        try await PostgresTestDatabase.with { url in
            let folder = TemporaryDatabase()
            let day: Int64 = 86_400_000
            let now = SystemEventClock().nowMilliseconds()
            // Events over the 80 days before now; --keep cuts them at the start of the UTC day 40 days ago.
            let start = RetentionPeriod.dayStart(of: now) - 80 * day
            let events =
                generatedEvents(count: 2_000, seed: 23, start: start, days: 80) + Self.installPath(start: start)
            let lines = events.map(NDJSONCodec.line(for:)).joined(separator: "\n") + "\n"
            try lines.write(toFile: folder.file("in.ndjson"), atomically: true, encoding: .utf8)
            try #"[{"slug":"invite","web":{"url":"https://example.com/"}}]"#.write(
                toFile: folder.file("links.json"), atomically: true, encoding: .utf8)
            let databases = [url, folder.path]
            for database in databases {
                let ingest = try BuiltAlstats.run(["ingest", "in.ndjson", "--database", database], in: folder.folder)
                #expect(ingest.status == 0, "\(database): \(ingest.errors)")
                let links = try BuiltAlstats.run(
                    ["links", "put", "links.json", "--public-url", "https://go.example.com", "--database", database],
                    in: folder.folder)
                #expect(links.status == 0, "\(database): \(links.errors)")
            }
            var before: [String] = []
            for database in databases {
                before.append(try Self.installFields(database, in: folder))
            }
            #expect(before[0] == before[1])
            #expect(before[0].contains(#""installs":{"attributed":26,"first_opens":52"#), "\(before[0])")
            #expect(before[0].contains(#""deferred_opens":26"#), "\(before[0])")
            var outputs: [String] = []
            for database in databases {
                let prune = try BuiltAlstats.run(["prune", "--keep", "40d", "--database", database], in: folder.folder)
                #expect(prune.status == 0, "\(database): \(prune.errors)")
                outputs.append(prune.output)
            }
            #expect(outputs[0].contains("months dropped: events_"), "\(outputs[0])")
            for (index, database) in databases.enumerated() {
                #expect(try Self.installFields(database, in: folder) == before[index], "\(database)")
            }
            let since = EventTime.rfc3339(milliseconds: RetentionPeriod("40d")!.cutoff(now: now))
            for filters in [[], ["--since", EventTime.rfc3339(milliseconds: start + 3 * day + 900_000)]] {
                let arguments = ["report", "--format", "json"] + filters
                let postgres = try BuiltAlstats.run(arguments + ["--database", url], in: folder.folder)
                let sqlite = try BuiltAlstats.run(arguments + ["--database", folder.path], in: folder.folder)
                #expect(postgres.status == 0, "\(postgres.errors)")
                #expect(postgres.output.contains(#""raw_events_since":"\#(since)""#))
                #expect(postgres.output == sqlite.output, "\(filters)")
            }
            try Self.expectSameExports(of: databases, in: folder)
        }
    }

    /// Both databases export the raw events since the horizon: the same lines, none of the install path's before it.
    static func expectSameExports(of databases: [String], in folder: TemporaryDatabase) throws {
        let exports = try databases.map { try BuiltAlstats.run(["export", "--database", $0], in: folder.folder) }
        #expect(exports.allSatisfy { $0.status == 0 })
        #expect(exports[0].output == exports[1].output && !exports[0].output.isEmpty)
        #expect(!exports[1].output.contains(#""id":"install-0-0""#))
    }

    /// The install path of link `invite` every 3 days from `start` on (a store tap, an install, a deferred open and
    /// two first opens each time): most of them before the cut-off, in the months the prune drops.
    static func installPath(start: Int64) -> [MeasurementEvent] {
        stride(from: 0, to: 26, by: 1).flatMap { step -> [MeasurementEvent] in
            let time = start + Int64(step) * 3 * 86_400_000 + 3_600_000
            func event(_ kind: Int, _ name: String, _ fields: [String: String]) -> MeasurementEvent {
                MeasurementEvent(
                    id: EventID("install-\(step)-\(kind)"), name: name, fields: fields, timestamp: time + Int64(kind))
            }
            return [
                event(0, EventName.linkStore, ["slug": "invite", "platform": step % 2 == 0 ? "ios" : "android"]),
                event(1, EventName.linkInstall, ["slug": "invite", "platform": "ios", "delay_ms": "\(step * 7_000)"]),
                event(2, EventName.navIn, [FieldName.targetURL: "https://go.example.com/l/invite", "deferred": "1"]),
                event(3, EventName.firstOpen, ["attributed": "1"]),
                event(4, EventName.firstOpen, [:]),
            ]
        }
    }

    /// The install figures of the report of `database` over all time: link `invite`'s funnel and the installs
    /// section of its JSON, as sorted JSON.
    static func installFields(_ database: String, in folder: TemporaryDatabase) throws -> String {
        let report = try BuiltAlstats.run(["report", "--format", "json", "--database", database], in: folder.folder)
        #expect(report.status == 0, "\(report.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [String: Any])
        let links = (json["links"] as? [[String: Any]] ?? []).filter { $0["slug"] as? String == "invite" }
        let names = ["store_taps", "installs", "deferred_opens", "install_rate", "median_delay_ms"]
        let fields: [String: Any] = [
            "links": links.map { link in link.filter { names.contains($0.key) } }, "installs": json["installs"] ?? 0,
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: fields, options: .sortedKeys), as: UTF8.self)
    }
}

#endif
