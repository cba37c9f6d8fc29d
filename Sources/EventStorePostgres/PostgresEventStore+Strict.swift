import EventIngest
import EventStoreInterface
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
    package func inOneTransaction(_ body: (PostgresIngestTransaction) async throws -> Bool) async throws -> Bool {
        try await inOneTransaction(limits: .standard, body)
    }

    /// ``inOneTransaction(_:)`` with the transaction's `limits` on what it holds back (tests lower them).
    func inOneTransaction(
        limits: PostgresIngestTransaction.Limits, _ body: (PostgresIngestTransaction) async throws -> Bool
    ) async throws -> Bool {
        var failure: (any Error)?
        var finished: (written: Set<String>, madeHere: Set<Int64>) = ([], [])
        let committed = try await withConnection(doing: "ingesting in one transaction (--strict)") { connection in
            try await connection.query("BEGIN", logger: self.logger)
            let transaction = PostgresIngestTransaction(store: self, connection: connection, limits: limits)
            do {
                guard try await body(transaction) else {
                    // Nothing is stored either way: a failed ROLLBACK must not turn the ingest's answer into an error.
                    await self.rollBack(connection)
                    return false
                }
            } catch {
                await self.rollBack(connection)
                failure = error
                return false
            }
            do {
                try await transaction.finish()
            } catch {
                await self.rollBack(connection)
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

    /// Rolls back the transaction open on `connection`; when that fails on a connection still open, closes it, so
    /// that the pool never hands out a connection inside the transaction (holding its ids).
    private func rollBack(_ connection: PostgresConnection) async {
        guard !connection.isClosed else { return }  // the server rolled it back when the connection went away
        do {
            try await connection.query("ROLLBACK", logger: logger)
        } catch {
            try? await connection.close()
        }
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
/// PARTITION`: ``PostgresEventStore/createPartitions(_:on:)``, which waits for nothing this transaction holds). When
/// the store may open only one connection they are made inside the transaction: they then appear to others, and the
/// lock of partition creation is free again, only when it ends.
///
/// What it holds is bounded (``Limits``): past ``Limits/rollupEntries`` rollup groups, links and visitors (an input
/// of ever new dimensions) they are upserted at once, and their rows are then held to the end.
package final class PostgresIngestTransaction: IngestRowTransaction {
    let store: PostgresEventStore
    let connection: PostgresConnection
    /// The partitions written, by name: noted for their summaries once the transaction commits.
    private(set) var written: Set<String> = []
    /// The months (by start) whose partitions this transaction made itself: the store learns of them only once it
    /// commits.
    private(set) var madeHere: Set<Int64> = []
    /// The rollups of every write so far.
    private var rollups = PostgresRollups()
    /// The completeness counts of every write so far, by kind, reason and day.
    private var counts: [CompletenessKey: Int] = [:]
    let limits: Limits

    /// How much a strict ingest's transaction holds back before it sends it.
    struct Limits {
        /// Rollup groups, link groups and link visitors.
        var rollupEntries: Int

        /// 100,000 entries (tens of MB).
        static let standard = Limits(rollupEntries: 100_000)
    }

    init(store: PostgresEventStore, connection: PostgresConnection, limits: Limits) {
        self.store = store
        self.connection = connection
        self.limits = limits
    }

    package func write(_ rows: [PostgresEventRows], losses: [DropReason: Int]) async throws(StoreError) -> Int {
        let prepared = PreparedWrite(rows, losses: losses)
        guard !prepared.isEmpty else { return 0 }
        let timestamps = store.partitionTimestamps(prepared.plan.timestamps)
        let (months, missing) = store.months(of: timestamps, madeAlso: madeHere)
        if !missing.isEmpty, store.connectionLimit < 2 {
            do {
                try await store.createPartitions(missing, on: connection)
            } catch {
                throw store.storeError(error, doing: "creating the month partitions of events (--strict)")
            }
            madeHere.formUnion(missing.map(\.start))
        } else if !missing.isEmpty {
            try await store.ensurePartitions(for: timestamps)
        }
        written.formUnion(months)
        do {
            let events = try await store.write(prepared.plan, prepared.ids, skipping: [], claimed: nil, on: connection)
            rollups.merge(events.rollups)
            counts.merge(events.deviceLosses, uniquingKeysWith: +)
            counts.merge(prepared.counts(at: store.clock.nowMilliseconds()), uniquingKeysWith: +)
            if rollups.groups.count + rollups.links.count + rollups.visitors.count > limits.rollupEntries {
                try await rollups.write(on: connection, store: store)
                rollups = PostgresRollups()
            }
            return events.stored.reduce(0, +)
        } catch {
            throw store.storeError(error, doing: "writing \(prepared.plan.candidates.count) events (--strict)")
        }
    }

    /// Upserts the rollups and completeness counts of every write, in the order every writer takes them.
    func finish() async throws(StoreError) {
        do {
            try await rollups.write(on: connection, store: store)
            try await store.addCompleteness(counts, now: store.clock.nowMilliseconds(), on: connection)
        } catch {
            throw store.storeError(error, doing: "writing the rollups of an ingest (--strict)")
        }
    }
}
