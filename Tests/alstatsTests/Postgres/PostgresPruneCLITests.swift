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
            let events = generatedEvents(count: 2_000, seed: 23, start: start, days: 80)
            let lines = events.map(NDJSONCodec.line(for:)).joined(separator: "\n") + "\n"
            try lines.write(toFile: folder.file("in.ndjson"), atomically: true, encoding: .utf8)
            let databases = [url, folder.path]
            for database in databases {
                let ingest = try BuiltAlstats.run(["ingest", "in.ndjson", "--database", database], in: folder.folder)
                #expect(ingest.status == 0, "\(database): \(ingest.errors)")
            }
            var outputs: [String] = []
            for database in databases {
                let prune = try BuiltAlstats.run(["prune", "--keep", "40d", "--database", database], in: folder.folder)
                #expect(prune.status == 0, "\(database): \(prune.errors)")
                outputs.append(prune.output)
            }
            #expect(outputs[0].contains("months dropped: events_"), "\(outputs[0])")
            let since = EventTime.rfc3339(milliseconds: RetentionPeriod("40d")!.cutoff(now: now))
            for filters in [[], ["--since", EventTime.rfc3339(milliseconds: start + 3 * day + 900_000)]] {
                let arguments = ["report", "--format", "json"] + filters
                let postgres = try BuiltAlstats.run(arguments + ["--database", url], in: folder.folder)
                let sqlite = try BuiltAlstats.run(arguments + ["--database", folder.path], in: folder.folder)
                #expect(postgres.status == 0, "\(postgres.errors)")
                #expect(postgres.output.contains(#""raw_events_since":"\#(since)""#))
                #expect(postgres.output == sqlite.output, "\(filters)")
            }
        }
    }
}

#endif
