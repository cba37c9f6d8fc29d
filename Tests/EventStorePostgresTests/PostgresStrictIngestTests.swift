#if Server

import EventIngest
import EventReport
import EventStoreSQLite
import Foundation
import MeasurementEvents
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// A strict ingest (`alstats ingest --strict`) into PostgreSQL writes its chunks into one transaction as it reads
/// them (``PostgresEventStore/inOneTransaction(_:)``) instead of holding the whole input: all of it is stored, as the
/// SQLite store's strict ingest stores it, or nothing when a line is invalid.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresStrictIngestTests {
    static let start: Int64 = 1_774_137_600_000  // 2026-03-22
    static let day: Int64 = 86_400_000

    /// Writes `lines` to a file in `folder` and returns its path.
    static func file(_ lines: [String], in folder: TemporaryDatabase) throws -> String {
        let path = folder.file("in-\(UUID()).ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// How many bytes `event_ids` takes on disk: rolled-back claims leave their pages behind.
    static func claimPages(_ url: String) async throws -> Int {
        try await PostgresTestDatabase.column(url, "SELECT pg_relation_size('event_ids')::bigint", as: Int.self)
            .reduce(0, +)
    }

    /// Parity events over March and April, in chunks of 1,000, an event of 1850 first (`events_before_1900`) and
    /// one of June last. June's partition is attached beside the transaction, which has written the partition of 1850
    /// by then (a default partition in its place, which `ATTACH` locks, made the attach wait for it for ever). The two
    /// stores count, store, report and export the same, and the store writes to June afterwards as to any month.
    /// With a pool of one connection the partitions are made inside the transaction (beside it, they would wait for
    /// a connection for ever).
    @Test(arguments: [8, 1])
    func aStrictIngestStoresWhatTheSQLiteStoresStrictIngestStores(connections: Int) async throws {
        let folder = TemporaryDatabase()
        var events = parityEvents(count: 5_000, seed: 7, days: 20)
        events.insert(
            MeasurementEvent(
                id: EventID("1850"), name: EventName.navIn, fields: ["ref": "feed"], timestamp: -3_786_825_600_000),
            at: 0)
        events.append(
            MeasurementEvent(
                id: EventID("june"), name: EventName.navIn, fields: ["ref": "feed"],
                timestamp: Self.start + 80 * Self.day))
        // Device loss records (sent twice: counted once), and a value cut to the length limit, in later chunks.
        for (index, number) in [(1_500, 1), (3_200, 2), (4_100, 1)] {
            events.insert(
                MeasurementEvent(
                    id: EventID("loss-\(number)"), name: DeviceLoss.eventName,
                    fields: ["reason": "buffer_full", "count": "\(number * 7)"], timestamp: Self.start + Int64(index)),
                at: index)
        }
        events.insert(
            MeasurementEvent(
                id: EventID("long"), name: EventName.navIn, fields: ["note": String(repeating: "v", count: 70_000)],
                timestamp: Self.start + 5),
            at: 2_500)
        let file = try Self.file(events.map(NDJSONCodec.line(for:)), in: folder)
        let options = IngestOptions(strict: true, batchSize: 1_000, commitInterval: .seconds(3_600))
        let sqlite = try SQLiteEventStore(path: folder.path)
        let expected = try sqlite.ingest([IngestInput(path: file)], options: options, onInvalidLine: { _ in })
        try await PostgresTestDatabase.with { url in
            let postgres = try await PostgresEventStore.open(
                url: url, options: PostgresEventStore.Options(maximumConnections: connections))
            // Should June's partition wait for the transaction, fail rather than hang (the database is dropped with its
            // sessions at the end).
            let ingest = Task { try await postgres.ingestNDJSON([IngestInput(path: file)], options: options) { _ in } }
            let done = Locked(false)
            Task {
                _ = await ingest.result
                done.withLock { $0 = true }
            }
            for _ in 0..<600 where !done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(100)) }
            guard done.withLock({ $0 }) else {
                Issue.record("the strict ingest did not end within 60 s")
                return
            }
            let summary = try await ingest.value
            #expect(summary.committed && summary.unfinished == nil)
            #expect(summary.stored == expected.stored && summary.duplicates == expected.duplicates)
            #expect(summary.lines == expected.lines && summary.stored > 4_000)
            #expect(try await postgres.count() == (try sqlite.count()))
            #expect(try await postgres.completeness() == (try sqlite.completeness()))
            let completeness = try await postgres.completeness()
            #expect(completeness["dropped"]?["device:buffer_full"] == 21, "\(completeness)")
            #expect(completeness["altered"]?["value_truncated"] == 1, "\(completeness)")
            try await PostgresParityTests.expectSameReports(sqlite: sqlite, postgres: postgres)
            try await PostgresParityTests.expectSameExports(sqlite: sqlite, postgres: postgres)
            let placed = try await PostgresTestDatabase.column(
                url, "SELECT tableoid::regclass::text FROM events WHERE id IN ('1850', 'june') ORDER BY ts_ms",
                as: String.self)
            #expect(placed == ["events_before_1900", "events_2026_06"])
            let later = MeasurementEvent(
                id: EventID("june-later"), name: EventName.navIn, fields: [:], timestamp: Self.start + 81 * Self.day)
            #expect(try await postgres.writeBatches([[later]]) == [1])
            await postgres.close()
        }
    }

    /// An invalid last line: nothing is stored or counted, every invalid line is reported, and the chunks before
    /// it went to the server as they were read (their claims' pages are left in `event_ids`: holding the whole input
    /// until the end, as the ingest did until 2026-11-27, sent nothing). An invalid first line: nothing more is
    /// held or sent after it.
    @Test func aStrictIngestWithAnInvalidLineStoresNothing() async throws {
        let folder = TemporaryDatabase()
        let valid = parityEvents(count: 3_000, seed: 8).map(NDJSONCodec.line(for:))
        let options = IngestOptions(strict: true, batchSize: 1_000, commitInterval: .seconds(3_600))
        for (lines, sentBefore) in [(valid + [#"{"name":"#], true), ([#"{"name":"#] + valid + ["nope"], false)] {
            let file = try Self.file(lines, in: folder)
            try await PostgresTestDatabase.with { url in
                let postgres = try await PostgresEventStore.open(url: url)
                // Autovacuum would truncate the rolled-back claims' pages (a loaded run saw 0 bytes).
                try await PostgresTestDatabase.admin(url, "ALTER TABLE event_ids SET (autovacuum_enabled = off)")
                var invalid: [String] = []
                let summary = try await postgres.ingestNDJSON([IngestInput(path: file)], options: options) {
                    invalid.append($0.description)
                }
                #expect(!summary.committed && summary.stored == 0 && summary.duplicates == 0)
                #expect(summary.invalid == invalid.count && invalid.count == (sentBefore ? 1 : 2))
                #expect(try await postgres.count() == 0)
                #expect(try await postgres.completeness().isEmpty)
                let pages = try await Self.claimPages(url)
                #expect(sentBefore ? pages > 0 : pages == 0, "event_ids takes \(pages) bytes")
                await postgres.close()
            }
        }
    }

    /// A strict ingest reading a named pipe: while its input is still open, its chunks are in the transaction (the ids
    /// of the first are held: another session's claim of them waits), and the first invalid line rolls it back at
    /// once (the ids are free again) rather than when the input ends; the rest is still read, and its invalid lines
    /// reported.
    @Test func aStrictIngestRollsBackAtItsFirstInvalidLineWhileItsInputIsStillOpen() async throws {
        let folder = TemporaryDatabase()
        let lines = parityEvents(count: 6_000, seed: 9).map(NDJSONCodec.line(for:))
        let firstIDs = Set(parityEvents(count: 6_000, seed: 9).prefix(100).map(\.id.description)).sorted()
        let pipe = folder.file("events.fifo")
        try #require(mkfifo(pipe, 0o600) == 0)
        let options = IngestOptions(strict: true, batchSize: 1_000, commitInterval: .seconds(3_600))
        try await PostgresTestDatabase.with { url in
            let postgres = try await PostgresEventStore.open(url: url)
            let writer = NamedPipeWriter(path: pipe)
            defer { writer.abandon() }
            let invalid = Locked<[String]>([])
            let ingest = Task {
                try await postgres.ingestNDJSON([IngestInput(path: pipe)], options: options) { line in
                    invalid.withLock { $0.append(line.description) }
                }
            }
            writer.send(lines: lines[..<2_000])
            #expect(
                try await Self.waitUntil(url, holds: firstIDs, is: true), "the first chunk never reached the server")
            writer.send(lines: [#"{"name":"#] + lines[2_000...])
            #expect(try await Self.waitUntil(url, holds: firstIDs, is: false), "not rolled back at the invalid line")
            #expect(invalid.withLock { $0.count } == 1)
            writer.send(lines: ["nope"])
            writer.finish()
            let summary = try await ingest.value
            #expect(writer.result(within: .seconds(30)) == 0)
            #expect(!summary.committed && summary.stored == 0 && summary.lines == lines.count + 2)
            #expect(summary.invalid == 2 && invalid.withLock { $0.count } == 2)
            #expect(try await postgres.count() == 0)
            await postgres.close()
        }
    }

    /// Waits, for at most 30 s, until another session's claim of `ids` (in order, as writers claim) waits for a transaction that holds one of
    /// them (`held` true) or goes through at once (`held` false; the claim is rolled back). Returns whether it did.
    static func waitUntil(_ url: String, holds ids: [String], is held: Bool) async throws -> Bool {
        try await PostgresTestDatabase.withConnection(url) { connection in
            let logger = PostgresTestDatabase.logger
            for _ in 0..<150 {
                try await connection.query("BEGIN", logger: logger)
                try await connection.query("SET LOCAL lock_timeout = '100ms'", logger: logger)
                var waited = false
                do {
                    try await connection.query(
                        "INSERT INTO event_ids (id) SELECT unnest(\(ids)::text[]) ON CONFLICT DO NOTHING",
                        logger: logger)
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" {
                    waited = true
                }
                try await connection.query("ROLLBACK", logger: logger)
                if waited == held { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }
    }

    /// Until it ends, a strict ingest's transaction holds no rollup row, no completeness row (one per reason for the
    /// whole database) and nothing a new month's partition waits for (it has written March's and 1850's), so that
    /// other writers of loss counts, of the same 15-minute groups and of new months do not wait for it, nor deadlock
    /// with it: it adds the counts up and upserts them just before it commits.
    @Test func aStrictIngestHoldsNoRollupOrCompletenessRowAndNothingANewMonthWaitsForUntilItsEnd() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let march = MeasurementEvent(
                id: EventID("a"), name: EventName.navIn, fields: ["ref": "feed"], timestamp: Self.start)
            #expect(try await store.writeBatches([[march]], losses: [.bufferFull: 1]) == [1])
            let again = MeasurementEvent(
                id: EventID("b"), name: EventName.navIn, fields: ["ref": "feed"], timestamp: Self.start + 1)
            let old = MeasurementEvent(
                id: EventID("c"), name: EventName.navIn, fields: ["ref": "feed"], timestamp: -3_786_825_600_000)
            let committed = try await store.inOneTransaction { transaction in
                let rows = PostgresEventRows([again, old], redactor: store.redactor)
                #expect(try await transaction.write([rows], losses: [.bufferFull: 2]) == 2)
                try await PostgresTestDatabase.withConnection(url) { other in
                    for lock in [
                        "SELECT count FROM completeness WHERE reason = 'buffer_full' FOR UPDATE NOWAIT",
                        "SELECT count FROM event_rollup WHERE ref = 'feed' FOR UPDATE NOWAIT",
                    ] {
                        try await other.query("BEGIN", logger: PostgresTestDatabase.logger)
                        do {
                            try await other.query(PostgresQuery(unsafeSQL: lock), logger: PostgresTestDatabase.logger)
                        } catch {
                            Issue.record("the strict ingest held what \(lock) takes: \(String(reflecting: error))")
                        }
                        try await other.query("ROLLBACK", logger: PostgresTestDatabase.logger)
                    }
                    try await other.query("BEGIN", logger: PostgresTestDatabase.logger)
                    try await other.query("SET LOCAL lock_timeout = '2s'", logger: PostgresTestDatabase.logger)
                    let july = try #require(PostgresEventStore.monthPartition(of: Self.start + 110 * Self.day))
                    do {
                        try await store.createPartitions([july], on: other)
                        try await other.query("COMMIT", logger: PostgresTestDatabase.logger)
                    } catch {
                        Issue.record("a new month's partition waited for the ingest: \(String(reflecting: error))")
                        try await other.query("ROLLBACK", logger: PostgresTestDatabase.logger)
                    }
                }
                return true
            }
            #expect(committed)
            #expect(try await store.count() == 3)
            #expect(try await store.completeness()["dropped"]?["buffer_full"] == 3)
            let feed = try await PostgresTestDatabase.column(
                url, "SELECT sum(count)::bigint FROM event_rollup WHERE ref = 'feed'", as: Int.self)
            #expect(feed == [3])
            let placed = try await PostgresTestDatabase.column(
                url, "SELECT tableoid::regclass::text FROM events WHERE id = 'c'", as: String.self)
            #expect(placed == ["events_before_1900"])
            await store.close()
        }
    }

    /// Past its limit, the transaction upserts its rollups at once: here a limit of an entry. The counts come out as
    /// with no limit, and a partition made beside the transaction is known to the store at once.
    @Test func pastItsLimitTheTransactionUpsertsItsRollupsAtOnce() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            func event(_ id: String, _ time: Int64) -> MeasurementEvent {
                MeasurementEvent(id: EventID(id), name: EventName.navIn, fields: ["ref": "feed"], timestamp: time)
            }
            let limits = PostgresIngestTransaction.Limits(rollupEntries: 1)
            let committed = try await store.inOneTransaction(limits: limits) { transaction in
                let first = PostgresEventRows(
                    [event("a", Self.start), event("old", -3_786_825_600_000)], redactor: store.redactor)
                let firstStored = try await transaction.write([first], losses: [.bufferFull: 1])
                #expect(firstStored == 2)
                let second = PostgresEventRows(
                    [event("june", Self.start + 80 * Self.day), event("b", Self.start + 1), event("a", Self.start)],
                    redactor: store.redactor)
                let secondStored = try await transaction.write([second], losses: [.bufferFull: 2])
                #expect(secondStored == 2)
                return true
            }
            #expect(committed)
            #expect(try await store.count() == 4)
            #expect(try await store.completeness()["dropped"]?["buffer_full"] == 3)
            let feed = try await PostgresTestDatabase.column(
                url, "SELECT sum(count)::bigint FROM event_rollup WHERE ref = 'feed'", as: Int.self)
            #expect(feed == [4])
            let placed = try await PostgresTestDatabase.column(
                url, "SELECT tableoid::regclass::text || ' ' || id FROM events ORDER BY ts_ms", as: String.self)
            #expect(
                placed == ["events_before_1900 old", "events_2026_03 a", "events_2026_03 b", "events_2026_06 june"])
            #expect(store.partitions.withLock { $0.count } == 2)
            #expect(try await store.writeBatches([[event("july", Self.start + 110 * Self.day)]]) == [1])
            await store.close()
        }
    }
}

#endif
