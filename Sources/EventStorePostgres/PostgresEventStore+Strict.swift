import EventStore
import MeasurementEvents
import PostgresNIO

extension PostgresEventStore {
    /// Runs `body` with one transaction open on one connection, and commits it when `body` returns `true`, rolls it
    /// back when it returns `false` or throws: a strict ingest writes its chunks into it as it reads them, so that
    /// it holds one chunk at a time instead of the whole input.
    ///
    /// While it is open, the ids it claimed are held: another writer of one of them waits for it to end (as
    /// writers of an SQLite file wait for a strict ingest's one transaction), and one that holds an id this ingest
    /// reaches later makes a deadlock, which PostgreSQL ends by failing one of the two (re-run it). Its rollups,
    /// link visitors and completeness counts are added up in memory and upserted once, just before it commits, in
    /// the order every writer takes them (``PostgresIngestTransaction``).
    /// - Returns: whether the transaction was committed; its partitions are then noted for their summaries
    ///   (``finishIngest()``).
    /// - Throws: what `body` threw, as it was (an ``IngestError`` of the input, a ``StoreError`` of a write), or a
    ///   ``StoreError`` when the transaction could not be opened or committed; nothing of it is stored then.
    package func inOneTransaction(_ body: (any IngestRowTransaction) async throws -> Bool) async throws -> Bool {
        var failure: (any Error)?
        var finished: (written: Set<String>, madeHere: Set<Int64>) = ([], [])
        let committed = try await withConnection(doing: "ingesting in one transaction (--strict)") { connection in
            try await connection.query("BEGIN", logger: self.logger)
            let transaction = PostgresIngestTransaction(store: self, connection: connection)
            do {
                guard try await body(transaction) else {
                    // Nothing is stored either way: a failed ROLLBACK must not turn the ingest's answer into an error.
                    _ = try? await connection.query("ROLLBACK", logger: self.logger)
                    return false
                }
            } catch {
                if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: self.logger) }
                failure = error
                return false
            }
            do {
                try await transaction.finish()
            } catch {
                if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: self.logger) }
                throw error
            }
            try await connection.query("COMMIT", logger: self.logger)
            finished = (transaction.written, transaction.madeHere)
            return true
        }
        if let failure { throw failure }
        if committed {
            partitions.withLock { $0.formUnion(finished.madeHere) }
            partitionsToSummarize.withLock { $0.formUnion(finished.written) }
        }
        return committed
    }
}

/// The open transaction of a strict ingest on PostgreSQL (``PostgresEventStore/inOneTransaction(_:)``): each write
/// claims its ids and copies its events inside it, as a write of its own would; the rollups, link visitors and
/// completeness counts of all its writes are added up here and upserted by ``finish()``, just before the commit.
/// Upserted chunk by chunk, they would hold their rows (a completeness row is one per reason for the whole
/// database) and the link visitors' lock until the end, and take them in no one order across chunks: every writer
/// of a loss count or a page view would wait for the whole ingest, and some would deadlock with it.
///
/// The partitions of new months are made beside it, on another connection, and committed at once (`ATTACH
/// PARTITION`: ``PostgresEventStore/createPartitions(_:on:)``). That waits for any session that holds the default
/// partition (`events_other`, times before 1900 or after 9999), which it checks for rows of the new month; so the
/// lines of such events are held back and sent by ``finish()``, after the last partition is made. Only when the
/// store may open one connection are partitions made inside the transaction; they then appear to others, and the
/// lock of partition creation is free again, only when it ends.
final class PostgresIngestTransaction: IngestRowTransaction {
    let store: PostgresEventStore
    let connection: PostgresConnection
    /// The partitions written, by name: noted for their summaries once the transaction commits.
    private(set) var written: Set<String> = []
    /// The months (by start) whose partitions this transaction made itself: the store learns of them only once it
    /// commits.
    private(set) var madeHere: Set<Int64> = []
    /// The rollups of every write so far.
    private var rollups = PostgresRollups()
    /// The completeness counts of every write so far, by kind and reason.
    private var counts: [String: [String: Int]] = [:]
    /// The `COPY` lines of the events for `events_other`, sent last.
    private var heldBack = ByteBuffer()

    init(store: PostgresEventStore, connection: PostgresConnection) {
        self.store = store
        self.connection = connection
    }

    func write(_ rows: [any IngestRows], losses: [DropReason: Int]) async throws(StoreError) -> Int {
        let prepared = PreparedWrite(try store.own(rows), losses: losses)
        guard !prepared.isEmpty else { return 0 }
        let (months, missing) = store.months(of: prepared.plan.timestamps, madeAlso: madeHere)
        if !missing.isEmpty, store.connectionLimit < 2 {
            do {
                try await store.createPartitions(missing, on: connection)
            } catch {
                throw store.storeError(error, doing: "creating the month partitions of events (--strict)")
            }
            madeHere.formUnion(missing.map(\.start))
        } else if !missing.isEmpty {
            try await store.ensurePartitions(for: prepared.plan.timestamps)
        }
        written.formUnion(months)
        do {
            var events = try await store.write(
                prepared.plan, prepared.ids, skipping: [], claimed: nil, holdingBack: true, on: connection)
            rollups.merge(events.rollups)
            for count in PostgresEventStore.adding(events.deviceLosses, to: prepared.counts) {
                counts[count.kind, default: [:]][count.reason, default: 0] += count.count
            }
            heldBack.writeBuffer(&events.heldBack)
            return events.stored.reduce(0, +)
        } catch {
            throw store.storeError(error, doing: "writing \(prepared.plan.candidates.count) events (--strict)")
        }
    }

    /// Sends the held-back lines, then upserts the rollups and completeness counts of every write, in the order
    /// every writer takes them.
    func finish() async throws(StoreError) {
        do {
            if heldBack.readableBytes > 0 { try await store.copy([heldBack], on: connection) }
            try await rollups.write(on: connection, store: store)
            let flat = counts.flatMap { kind, reasons in reasons.map { (kind: kind, reason: $0.key, count: $0.value) } }
            try await store.addCompleteness(flat, now: PostgresEventStore.nowMilliseconds(), on: connection)
        } catch {
            throw store.storeError(error, doing: "writing the rollups of an ingest (--strict)")
        }
    }
}
