#if Server

import EventStoreInterface
import Foundation
import MeasurementEvents
import PostgresTestSupport
import TestSupport
import Testing

/// The built `alstats` with `--database postgres://...` against a real server, as a user runs it: the same
/// NDJSON ingested into PostgreSQL and into an SQLite file gives byte-identical report JSON (several filters and
/// time zones), exports and bundled query output in every format. Serialized, as the other runs of the built
/// binary.
@Suite(.serialized)
struct PostgresCLITests {
    @Test(.enabled(if: PostgresTestDatabase.shouldRun && BuiltAlstats.shouldRun))
    func ingestReportAndExportGiveTheSameBytesOnPostgresAsOnSQLite() async throws {
        try await PostgresTestDatabase.with { url in
            let folder = TemporaryDatabase()
            let input = folder.file("events.ndjson")
            let events = parityEvents(count: 3_000, seed: 16)
            // Every event twice: the second copy is a duplicate on both backends.
            let lines = (events + events.prefix(500)).map(NDJSONCodec.line(for:)).joined(separator: "\n") + "\n"
            try lines.write(toFile: input, atomically: true, encoding: .utf8)

            for database in [url, folder.path] {
                let ingest = try BuiltAlstats.run(["ingest", input, "--database", database], in: folder.folder)
                #expect(ingest.status == 0, "\(database): \(ingest.errors)")
            }
            let reports: [[String]] = [
                [], ["--tz", "Asia/Kolkata"], ["--tz", "America/New_York", "--top", "3"],
                ["--since", "2026-03-24", "--until", "2026-03-28"], ["--ref", "share", "--tz", "+05:30"],
            ]
            for filters in reports {
                let arguments = ["report", "--format", "json"] + filters
                let postgres = try BuiltAlstats.run(arguments + ["--database", url], in: folder.folder)
                let sqlite = try BuiltAlstats.run(arguments + ["--database", folder.path], in: folder.folder)
                #expect(postgres.status == 0, "\(filters): \(postgres.errors)")
                #expect(!postgres.output.isEmpty)
                #expect(postgres.output == sqlite.output, "\(filters)")
            }
            let postgresExport = try BuiltAlstats.run(["export", "--database", url], in: folder.folder)
            let sqliteExport = try BuiltAlstats.run(["export", "--database", folder.path], in: folder.folder)
            #expect(postgresExport.status == 0, "\(postgresExport.errors)")
            #expect(postgresExport.output == sqliteExport.output)
            #expect(postgresExport.output.split(separator: "\n").count == Set(events.map(\.id)).count)

            let queries: [[String]] = [
                ["failure_reasons"], ["daily_funnel", "--format", "csv"],
                ["ref_categories", "--param", "since=1774310400000", "--format", "json"],
                ["recent_failures", "--param", "limit=5", "--format", "markdown"], ["link_funnel", "--format", "html"],
            ]
            for arguments in queries {
                let postgres = try BuiltAlstats.run(["query"] + arguments + ["--database", url], in: folder.folder)
                let sqlite = try BuiltAlstats.run(
                    ["query"] + arguments + ["--database", folder.path], in: folder.folder)
                #expect(postgres.status == 0, "\(arguments): \(postgres.errors)")
                #expect(postgres.output.utf8.count > 200, "\(arguments): \(postgres.output)")
                #expect(postgres.output == sqlite.output, "\(arguments)")
            }
            let unreadable = try BuiltAlstats.run(
                ["query", "daily_funnel", "--param", "since=yesterday", "--database", url], in: folder.folder)
            #expect(unreadable.status == 64, "\(unreadable.errors)")
            #expect(unreadable.errors.contains("invalid input syntax"), "\(unreadable.errors)")
        }
    }

    /// Two `alstats ingest` processes at once on one PostgreSQL database, their files overlapping by half (one event
    /// per id): each id is stored once, and the report (rollups written by both) is the SQLite file's for both
    /// files.
    @Test(.enabled(if: PostgresTestDatabase.shouldRun && BuiltAlstats.shouldRun))
    func twoIngestProcessesAtOnceStoreEachIDOnceWithTheRollupsOfOne() async throws {
        try await PostgresTestDatabase.with { url in
            let folder = TemporaryDatabase()
            // One event per id: which of two events with one id two writers at once keep is a race on either
            // backend; what must hold is each id once, whoever wins.
            var seen: Set<EventID> = []
            let events = parityEvents(count: 8_000, seed: 23).filter { seen.insert($0.id).inserted }
            let halves = [Array(events[..<6_000]), Array(events[2_000...].reversed())]
            let files = try halves.enumerated().map { index, half in
                let path = folder.file("part\(index).ndjson")
                try (half.map(NDJSONCodec.line(for:)).joined(separator: "\n") + "\n")
                    .write(toFile: path, atomically: true, encoding: .utf8)
                return path
            }
            let migrate = try BuiltAlstats.run(["migrate", "--database", url], in: folder.folder)
            #expect(migrate.status == 0, "\(migrate.errors)")
            async let first = Task.detached {
                try BuiltAlstats.run(["ingest", files[0], "--database", url], in: folder.folder)
            }.value
            async let second = Task.detached {
                try BuiltAlstats.run(["ingest", files[1], "--database", url], in: folder.folder)
            }.value
            for ingest in try await [first, second] {
                #expect(ingest.status == 0, "\(ingest.errors)")
            }
            for file in files {
                let ingest = try BuiltAlstats.run(["ingest", file, "--database", folder.path], in: folder.folder)
                #expect(ingest.status == 0, "\(ingest.errors)")
            }
            let postgresExport = try BuiltAlstats.run(["export", "--database", url], in: folder.folder)
            let sqliteExport = try BuiltAlstats.run(["export", "--database", folder.path], in: folder.folder)
            #expect(postgresExport.output == sqliteExport.output)
            #expect(postgresExport.output.split(separator: "\n").count == Set(events.map(\.id)).count)
            for filters in [[], ["--ref", "feed", "--tz", "Europe/Paris"]] {
                let arguments = ["report", "--format", "json"] + filters
                let postgres = try BuiltAlstats.run(arguments + ["--database", url], in: folder.folder)
                let sqlite = try BuiltAlstats.run(arguments + ["--database", folder.path], in: folder.folder)
                #expect(postgres.status == 0, "\(postgres.errors)")
                #expect(postgres.output == sqlite.output, "\(filters)")
            }
        }
    }

    /// An ingest whose events are all committed but whose summaries of the time index meet a partition's lock held
    /// elsewhere (a `VACUUM` run by hand) waits five seconds, then says so in a warning and exits 0: every event is
    /// stored, and the ranges are left for `alstats serve`'s upkeep or autovacuum.
    @Test(.enabled(if: PostgresTestDatabase.shouldRun && BuiltAlstats.shouldRun))
    func anIngestWhoseSummariesMeetAHeldLockStoresEverythingAndWarns() async throws {
        try await PostgresTestDatabase.with { url in
            let folder = TemporaryDatabase()
            let input = folder.file("events.ndjson")
            let start: Int64 = 1_772_323_200_000  // 2026-03-01T00:00:00Z
            let note = String(repeating: "n", count: 900)
            let lines = (0..<3_000).map { number in
                NDJSONCodec.line(
                    for: MeasurementEvent(
                        id: EventID("e\(number)"), name: EventName.navIn, fields: ["ref": "r", "note": note],
                        timestamp: start + Int64(number) * 60_000))
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
            // The month's partition, made by the first line alone.
            try (lines[0] + "\n").write(toFile: folder.file("first.ndjson"), atomically: true, encoding: .utf8)
            let first = try BuiltAlstats.run(["ingest", "first.ndjson", "--database", url], in: folder.folder)
            #expect(first.status == 0, "\(first.errors)")
            try await PostgresTestDatabase.leaveSummariesToAlstats(url, partition: "events_2026_03")

            let ingest = try await PostgresTestDatabase.withConnection(url) { holder in
                try await holder.query("BEGIN", logger: PostgresTestDatabase.logger)
                try await holder.query(
                    "LOCK TABLE events_2026_03 IN SHARE UPDATE EXCLUSIVE MODE", logger: PostgresTestDatabase.logger)
                // Should the ingest wait for the lock with no end, `timeout` stops it after a minute (status 124):
                // the test then fails instead of hanging.
                let ingest = try ProcessRunner.run(
                    "/usr/bin/timeout", ["60", try BuiltAlstats.require(), "ingest", input, "--database", url],
                    in: folder.folder)
                try await holder.query("ROLLBACK", logger: PostgresTestDatabase.logger)
                return ingest
            }
            #expect(ingest.status == 0, "\(ingest.errors)")
            #expect(ingest.output.contains("stored 2999 new events (1 already stored)"), "\(ingest.output)")
            #expect(
                ingest.errors.contains(
                    "warning: every event is stored, but the time index of events_2026_03 was not summarised: another "
                        + "session held a partition's lock"),
                "\(ingest.errors)")
            // The ranges it filled are still to summarise.
            let summarised = try await PostgresTestDatabase.column(
                url, "SELECT brin_summarize_new_values('events_2026_03_ts_ms_idx')::bigint", as: Int.self)
            #expect((summarised.first ?? 0) >= 2, "\(summarised)")
        }
    }
}

#endif
