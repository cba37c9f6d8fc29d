#if Server
import EventIngest
import EventReport
import EventStoreSQLite
import EventStoreInterface
import EventStorePostgres
import Foundation
import Logging
import MeasurementEvents
import NIOCore
import PostgresNIO

/// `alstats-bench postgres --postgres-url URL`: on a database of its own on that server (created and dropped),
/// ingest of realistic events (``RealisticLines``) into ``PostgresEventStore`` as `alstats ingest` runs it
/// against `COPY` of the same rows into a plain table (the server's own limit) and against one `INSERT` per event
/// (what a naive collector does), in the same run (ingest and `COPY` as medians of `--runs`, 3 by default, 1 with
/// `--quick`, taken in turn, each from a quiet server); calls of 1,000 events (the collector's shape); then the
/// report (``PostgresEventStore/rows(for:)`` and the builder) against the SQLite store's on the same events.
/// Goals: ingest ≥ 0.5× COPY's rate and ≥ 10× the per-event rate; the report within 2× of SQLite's at 10M events
/// (`--report-events`; 1M by default, 100k with `--quick`, so say which size a figure is for).
enum PostgresBenchmark {
    static let suite = "postgres"

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        guard let url = arguments.values["postgres-url"] else {
            throw BenchFailure("alstats-bench postgres needs --postgres-url postgres://USER@HOST:PORT/DATABASE")
        }
        let events = Int(arguments.values["events"] ?? "") ?? (arguments.quick ? 20_000 : 200_000)
        let naive = Int(arguments.values["naive-events"] ?? "") ?? (arguments.quick ? 2_000 : 20_000)
        let reportEvents = Int(arguments.values["report-events"] ?? "") ?? (arguments.quick ? 100_000 : 1_000_000)
        let runs = Int(arguments.values["runs"] ?? "") ?? (arguments.quick ? 1 : 3)
        return try UploadBenchmark.blocking {
            try await PostgresBenchmarkRun(serverURL: url).run(
                events: events, naiveEvents: naive, reportEvents: reportEvents, runs: max(1, runs))
        }
    }
}

/// One run of the suite on a database of its own.
struct PostgresBenchmarkRun: Sendable {
    var serverURL: String
    static let logger = Logger(label: "alstats.bench.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The realistic lines, and their events decoded as ingest decodes them.
    static func events(_ count: Int, seed: UInt64) -> (lines: [String], events: [MeasurementEvent]) {
        var generator = RealisticLines(style: .random, seed: seed)
        let lines = (0..<count).map { _ in generator.next() }
        let codec = NDJSONCodec()
        return (lines, lines.compactMap { try? codec.decode($0) })
    }

    func run(events count: Int, naiveEvents: Int, reportEvents: Int, runs: Int) async throws -> [Measure] {
        let name = "alstats_bench_\(ProcessInfo.processInfo.processIdentifier)"
        let url = try databaseURL(name)
        try await admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        try await admin("CREATE DATABASE \(name)")
        do {
            let measures = try await measure(
                events: count, naiveEvents: naiveEvents, reportEvents: reportEvents, runs: runs, url: url)
            try await admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            return measures
        } catch {
            try? await admin("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
    }

    /// Empties every table a write fills, so that the next measure starts from the same empty store.
    func emptyStore(_ url: String) async throws {
        _ = try await withConnection(url) { connection in
            try await connection.query(
                """
                TRUNCATE events, event_ids, completeness, event_rollup, event_rollup_day, event_rollup_series,
                    link_rollup, link_rollup_day, link_visitor_day, link_visitor_count
                """, logger: Self.logger)
        }
    }

    /// Leaves the server quiet before a measure: `VACUUM (ANALYZE)` of the database, so that autovacuum has
    /// nothing of the last measure's rows left to do during the next, then `CHECKPOINT`, so that each measure
    /// starts with no dirty pages and the same full-page writes ahead of it. `CHECKPOINT` needs a superuser or
    /// the `pg_checkpoint` role (PostgreSQL 15); without either it is left out, and the figures swing more.
    func quiesce(_ url: String) async throws {
        try await withConnection(url) { connection in
            try await connection.query("VACUUM (ANALYZE)", logger: Self.logger)
            _ = try? await connection.query("CHECKPOINT", logger: Self.logger)
        }
    }

    func measure(
        events count: Int, naiveEvents: Int, reportEvents: Int, runs: Int, url: String
    ) async throws -> [Measure] {
        let (lines, events) = Self.events(count, seed: 11)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "alstats-bench-postgres-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("events.ndjson").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        var measures: [Measure] = []
        let store = try await PostgresEventStore.open(url: url)
        // What `alstats ingest --database postgres://...` does: read, decode, write in chunks; against `COPY` of
        // the same rows. The medians of `runs` of each, taken in turn (an ingest into the emptied store, then a
        // `COPY`), each from a quiet server (``quiesce(_:)``): the host's slow and fast stretches, and the
        // server's checkpoints and autovacuum, otherwise fall on one measure and not the other (one run of
        // either swung by up to a half on this machine when all ingests came before all `COPY`s).
        var oursTimes: [Double] = []
        var copyTimes: [Double] = []
        for run in 0..<runs {
            if run > 0 { try await emptyStore(url) }
            try await quiesce(url)
            oursTimes.append(
                try await Self.seconds {
                    _ = try await store.ingestNDJSON([IngestInput(path: file)], onInvalidLine: { _ in })
                })
            try await quiesce(url)
            copyTimes.append(try await withConnection(url) { try await Self.copy(events, on: $0) })
        }
        let ours = median(oursTimes)
        let copy = median(copyTimes)
        // The collector's shape: calls of 1,000 events, one after the other, each its own transaction.
        try await emptyStore(url)
        try await quiesce(url)
        let collector = try await Self.seconds {
            for start in stride(from: 0, to: events.count, by: 1_000) {
                _ = try await store.writeBatches([Array(events[start..<min(start + 1_000, events.count)])])
            }
        }
        try await quiesce(url)
        let perEvent = try await withConnection(url) {
            try await Self.insertEach(Array(events.prefix(naiveEvents)), on: $0)
        }
        let rate = Double(events.count) / ours
        measures.append(
            Measure.compared(
                suite: PostgresBenchmark.suite, name: "ingest_events_per_s", value: rate, unit: "events/s",
                baseline: "COPY into a plain table\(runs > 1 ? ", medians of \(runs)" : "")",
                baselineValue: Double(events.count) / copy,
                goal: "ratio >= 0.5", check: { $0 >= 0.5 }))
        measures.append(
            Measure.compared(
                suite: PostgresBenchmark.suite, name: "ingest_vs_insert_per_event", value: rate, unit: "events/s",
                baseline: "one INSERT per event (\(naiveEvents) events)",
                baselineValue: Double(naiveEvents) / perEvent, goal: "ratio >= 10", check: { $0 >= 10 }))
        measures.append(
            Measure.compared(
                suite: PostgresBenchmark.suite, name: "write_calls_of_1000_events_per_s",
                value: Double(events.count) / collector, unit: "events/s", baseline: "ingest, same events",
                baselineValue: rate, goal: "none (the collector's shape)", check: { _ in true }))
        await store.close()
        try await withConnection(url) { connection in
            try await connection.query("DROP TABLE copy_events, naive_events", logger: Self.logger)
            try await connection.query("TRUNCATE events, event_ids", logger: Self.logger)
        }
        measures.append(try await reportMeasure(events: reportEvents, url: url))
        return measures
    }
}
#endif
