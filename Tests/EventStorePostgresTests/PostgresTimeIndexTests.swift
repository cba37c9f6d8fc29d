#if Server

import EventIngest
import MeasurementEvents
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// `events_by_time` as a BRIN index (Migrations/postgres/0006): what reads it by time still gets exactly its events, however
/// out of order they came, and a database made before it moves to it keeping every event.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresTimeIndexTests {
    static let start: Int64 = 1_772_323_200_000  // 2026-03-01T00:00:00Z
    static let minute: Int64 = 60_000
    static let day: Int64 = 86_400_000

    /// Three weeks of March in time order, batch after batch, with a tenth of the events uploaded late (one to
    /// five days before their neighbours) and a few from a clock years ahead: what widens a BRIN range.
    static func events() -> [[MeasurementEvent]] {
        var generator = SeededGenerator(seed: 16)
        var batches: [[MeasurementEvent]] = []
        for batch in 0..<12 {
            batches.append(
                (0..<400).map { position in
                    let number = batch * 400 + position
                    let draw = generator.next()
                    var time = start + Int64(number) * 7 * minute + Int64(draw % 60_000)
                    if (draw >> 32) % 10 == 0 { time -= Int64(1 + (draw >> 40) % 5) * day }
                    if number % 997 == 0 { time += 3 * 365 * day }
                    return MeasurementEvent(
                        id: EventID("e\(number)"), name: EventName.navIn, fields: ["ref": "r\(number % 3)"],
                        timestamp: time)
                })
        }
        return batches
    }

    /// The ids of `events` with `since <= time < until`, in export order (time, then id bytewise).
    static func expected(_ events: [MeasurementEvent], since: Int64, until: Int64) -> [String] {
        events.filter { $0.timestamp >= since && $0.timestamp < until }
            .sorted {
                $0.timestamp != $1.timestamp
                    ? $0.timestamp < $1.timestamp
                    : $0.id.description.utf8.lexicographicallyPrecedes($1.id.description.utf8)
            }
            .map(\.id.description)
    }

    /// The access method of each partition's `events_by_time` index, by partition.
    static func indexMethods(_ url: String) async throws -> [String] {
        try await PostgresTestDatabase.column(
            url,
            """
            SELECT t.relname || ' ' || am.amname FROM pg_index AS i
            JOIN pg_partition_tree('events_by_time'::regclass) AS tree ON tree.relid = i.indexrelid
            JOIN pg_class AS x ON x.oid = i.indexrelid JOIN pg_am AS am ON am.oid = x.relam
            JOIN pg_class AS t ON t.oid = i.indrelid JOIN pg_inherits AS h ON h.inhrelid = t.oid
            WHERE h.inhparent = 'events'::regclass ORDER BY t.relname
            """, as: String.self)
    }

    @Test func windowsReadExactlyTheirEventsWhenEventsArriveOutOfTimeOrder() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let batches = Self.events()
            for batch in batches { #expect(try await store.writeBatches([batch]) == [batch.count]) }
            let events = batches.flatMap { $0 }
            // Summarise every full range, as autovacuum does in time, so that the reads below consult the summaries.
            try await PostgresTestDatabase.admin(url, "VACUUM events")
            let methods = try await Self.indexMethods(url)
            #expect(
                methods.contains("events_2026_03 brin") && methods.allSatisfy { $0.hasSuffix(" brin") }, "\(methods)")
            let windows: [(since: Int64, until: Int64)] = [
                (Self.start + 9 * Self.day + 7 * Self.minute, Self.start + 9 * Self.day + 22 * Self.minute),
                (Self.start + 15 * Self.minute, Self.start + 30 * Self.minute),
                (Self.start - 3 * Self.day, Self.start + 2 * Self.day + 123),
                (Self.start + 20 * Self.day, Self.start + 4 * 365 * Self.day),
                (Self.start + 11 * Self.day + 5, Self.start + 11 * Self.day + 6),
                (.min, .max),
            ]
            for window in windows {
                let wanted = Self.expected(events, since: window.since, until: window.until)
                var read: [String] = []
                try await store.forEachEvent(since: window.since, until: window.until) {
                    read.append($0.id.description)
                }
                #expect(read == wanted, "window \(window)")
                // The same through the index alone: no sequential scan to fall back on.
                let indexed = try await PostgresTestDatabase.withConnection(url) { connection in
                    try await connection.query("SET enable_seqscan = off", logger: PostgresTestDatabase.logger)
                    var binds = PostgresBindings()
                    binds.append(window.since)
                    binds.append(window.until)
                    var ids: [String] = []
                    let query = PostgresQuery(unsafeSQL: PostgresSQL.statement("select_events"), binds: binds)
                    for try await row in try await connection.query(query, logger: PostgresTestDatabase.logger) {
                        ids.append(try row.makeRandomAccess()[0].decode(String.self))
                    }
                    return ids
                }
                #expect(indexed == wanted, "window \(window), read through events_by_time")
            }
            await store.close()
        }
    }

    /// An ingest ends with every filled range of the time index summarised (``PostgresEventStore/finishIngest()``):
    /// autovacuum drops the summary requests of a bulk load's ranges, and a read by time reads an unsummarised range
    /// whole. A file of two months, its events long enough to fill several ranges in each.
    @Test func anIngestLeavesNoFilledRangeOfTheTimeIndexWithoutItsSummary() async throws {
        let folder = TemporaryDatabase()
        let file = folder.file("events.ndjson")
        let note = String(repeating: "n", count: 900)
        // 10,000 events in March, then 6,000 in April.
        let lines = (0..<16_000).map { number in
            let time =
                number < 10_000
                ? Self.start + Int64(number) * 3 * Self.minute
                : Self.start + 31 * Self.day + Int64(number - 10_000) * 3 * Self.minute
            return NDJSONCodec.line(
                for: MeasurementEvent(
                    id: EventID("e\(number)"), name: EventName.navIn, fields: ["ref": "r\(number % 3)", "note": note],
                    timestamp: time))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let summary = try await store.ingestNDJSON([IngestInput(path: file)], onInvalidLine: { _ in })
            #expect(summary.stored == 16_000)
            let rangesFilled = try await PostgresTestDatabase.column(
                url,
                """
                SELECT (pg_relation_size(i.indrelid) / (128 * 8192))::bigint FROM pg_partition_tree('events_by_time') AS t
                JOIN pg_index AS i ON i.indexrelid = t.relid WHERE t.isleaf AND pg_relation_size(i.indrelid) > 0
                ORDER BY i.indrelid::regclass::text
                """, as: Int.self)
            #expect(rangesFilled.count == 2 && rangesFilled.allSatisfy { $0 >= 2 }, "March and April: \(rangesFilled)")
            // What summarising now would add: nothing (brin_summarize_new_values takes the range still filling too).
            let unsummarised = try await PostgresTestDatabase.column(
                url,
                """
                SELECT brin_summarize_new_values(i.indexrelid::regclass)::bigint FROM pg_partition_tree('events_by_time')
                AS t JOIN pg_index AS i ON i.indexrelid = t.relid WHERE t.isleaf
                """, as: Int.self)
            #expect(!unsummarised.isEmpty && unsummarised.allSatisfy { $0 == 0 }, "\(unsummarised)")
            #expect(
                try await store.summarizeTimeIndex(lockTimeout: .seconds(5)) == 0,
                "the ingest left no partition to summarise")
            await store.close()
        }
    }

    /// Writes `count` events of about 1 KB in March (1,000 fill about a range of the time index) a minute apart,
    /// with summaries left to alstats once the month's partition exists, and returns the partition's pages.
    static func fillMarch(_ store: PostgresEventStore, url: String, count: Int = 12_000) async throws -> Int {
        let note = String(repeating: "n", count: 900)
        let events = (0..<count).map { number in
            MeasurementEvent(
                id: EventID("e\(number)"), name: EventName.navIn, fields: ["ref": "r", "note": note],
                timestamp: Self.start + Int64(number) * Self.minute)
        }
        #expect(try await store.writeBatches([Array(events[0..<1])]) == [1])
        try await PostgresTestDatabase.leaveSummariesToAlstats(url, partition: "events_2026_03")
        var stored = 1
        for start in stride(from: 1, to: events.count, by: 4_000) {
            stored += try await store.writeBatches([Array(events[start..<min(start + 4_000, events.count)])])[0]
        }
        #expect(stored == count)
        let pages = try await PostgresTestDatabase.column(
            url, "SELECT (pg_relation_size('events_2026_03') / 8192)::bigint", as: Int.self)
        return pages.first ?? 0
    }

    /// How many ranges of March's time index a summary now would add.
    static func unsummarisedInMarch(_ url: String) async throws -> Int {
        try await PostgresTestDatabase.column(
            url,
            """
            SELECT brin_summarize_new_values(i.indexrelid::regclass)::bigint FROM pg_index AS i
            JOIN pg_partition_tree('events_by_time'::regclass) AS tree ON tree.relid = i.indexrelid
            WHERE i.indrelid = 'events_2026_03'::regclass
            """, as: Int.self
        ).reduce(0, +)
    }

    /// A summary during an ingest (Statements/summarize_filled_ranges.sql) summarises every range below the last
    /// two whole ones and the one still filling, which the writers may still add to (a range summarised early has
    /// its summary rewritten for every row added after), and the next one starts where it stopped.
    @Test func aSummaryDuringAnIngestLeavesTheLastRangesToItsEnd() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let pages = try await Self.fillMarch(store, url: url)
            let (whole, ranges) = (pages / 128, (pages + 127) / 128)
            #expect(whole >= 8, "the events filled \(pages) pages")
            await store.summarizeFilledRanges()
            let below = store.ingestSummaries.withLock { $0.below["events_2026_03"] }
            #expect(below == Int64((whole - 2) * 128), "\(pages) pages")
            await store.summarizeFilledRanges()
            #expect(store.ingestSummaries.withLock { $0.below["events_2026_03"] } == below, "nothing more filled")
            #expect(try await Self.unsummarisedInMarch(url) == ranges - (whole - 2), "\(pages) pages")
            await store.close()
        }
    }

    /// The writes of an ingest start a summary once ``PostgresEventStore/eventsPerIngestSummary`` events came since
    /// the last one, and the end of the ingest waits for it; fewer events start none.
    @Test func anIngestsWritesStartSummariesThatItsEndWaitsFor() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let pages = try await Self.fillMarch(store, url: url)
            store.summarizeWhileIngesting(after: PostgresEventStore.eventsPerIngestSummary - 1)
            #expect(store.ingestSummaries.withLock { $0.generation } == 0, "too few events for a summary")
            store.summarizeWhileIngesting(after: 1)
            #expect(store.ingestSummaries.withLock { $0.generation } == 1)
            await store.endIngestSummaries()
            #expect(store.ingestSummaries.withLock { $0.running == nil && $0.below.isEmpty && $0.eventsSince == 0 })
            let (whole, ranges) = (pages / 128, (pages + 127) / 128)
            #expect(try await Self.unsummarisedInMarch(url) == ranges - (whole - 2), "\(pages) pages")
            await store.close()
        }
    }

    /// A summary that meets a partition's lock held elsewhere (another server's upkeep, a `VACUUM`) gives up after
    /// its lock timeout without an error and leaves the partition for the next call, which summarises it.
    @Test func aSummaryThatMeetsAHeldLockLeavesItsPartitionsForTheNextCall() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            _ = try await Self.fillMarch(store, url: url, count: 3_000)
            try await PostgresTestDatabase.withConnection(url) { holder in
                try await holder.query("BEGIN", logger: PostgresTestDatabase.logger)
                try await holder.query(
                    "LOCK TABLE events_2026_03 IN SHARE UPDATE EXCLUSIVE MODE", logger: PostgresTestDatabase.logger)
                #expect(try await store.summarizeTimeIndex(lockTimeout: .milliseconds(200)) == nil)
                try await holder.query("ROLLBACK", logger: PostgresTestDatabase.logger)
            }
            let summarised = try await store.summarizeTimeIndex(lockTimeout: .milliseconds(200))
            #expect((summarised ?? 0) >= 2, "the ranges the 3,000 events filled: \(String(describing: summarised))")
            #expect(try await store.summarizeTimeIndex(lockTimeout: .milliseconds(200)) == 0, "nothing left noted")
            await store.close()
        }
    }

    /// A database at schema version 5 (`events_by_time` a B-tree on `(ts_ms, id)` and the default partition
    /// `events_other`, as 0001 made them, and none of the later migrations' tables) moves to the BRIN index (and to
    /// the partitions of 0007) when a store opens it, with its events and their export unchanged.
    @Test func aVersion5DatabaseMovesToTheBRINIndexKeepingItsEvents() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            for batch in Self.events() { _ = try await store.writeBatches([batch]) }
            var before: [UInt8] = []
            try await store.export { before += $0 }
            await store.close()
            for statement in [
                "DROP TABLE events_before_1900", "DROP TABLE events_after_9999",
                "CREATE TABLE events_other PARTITION OF events DEFAULT", "DROP INDEX events_by_time",
                "CREATE INDEX events_by_time ON events (ts_ms, id)", "DROP TABLE alert_episodes",
                "DROP TABLE click_tokens", "DROP INDEX events_install_path", "DROP INDEX events_deferred_opens",
                "DROP TABLE retention_horizon", "DROP TABLE pruned_install_events",
                "DELETE FROM schema_migrations WHERE version >= 6",
            ] {
                try await PostgresTestDatabase.admin(url, statement)
            }
            #expect(try await Self.indexMethods(url).allSatisfy { $0.hasSuffix(" btree") })

            let reopened = try await PostgresEventStore.open(url: url)
            #expect(try await reopened.schemaVersion == PostgresEventStore.latestSchemaVersion)
            #expect(try await Self.indexMethods(url).allSatisfy { $0.hasSuffix(" brin") })
            var after: [UInt8] = []
            try await reopened.export { after += $0 }
            #expect(after == before && !after.isEmpty)
            #expect(try await reopened.count() == 4_800)
            await reopened.close()
        }
    }
}

#endif
