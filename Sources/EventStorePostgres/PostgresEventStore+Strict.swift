import EventStore
import MeasurementEvents
import PostgresNIO

extension PostgresEventStore {
    /// Runs `body` with one transaction open on one connection, and commits it when `body` returns `true`, rolls it
    /// back when it returns `false` or throws: a strict ingest writes its chunks into it as it reads them, so that
    /// it holds one chunk at a time instead of the whole input.
    ///
    /// While it is open, the ids it claimed and the rollup rows it touched are held: another writer of one of those
    /// ids, or of the same 15-minute group, waits for it to end, as writers of an SQLite file wait for a strict
    /// ingest's one transaction. The partitions of new months are made beside it, in transactions of their own,
    /// which wait for no writer (``createPartitions(_:on:)``); see ``PostgresIngestTransaction`` for the one case
    /// where they are made inside it.
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
            let commit: Bool
            do {
                commit = try await body(transaction)
            } catch {
                if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: self.logger) }
                failure = error
                return false
            }
            try await connection.query(commit ? "COMMIT" : "ROLLBACK", logger: self.logger)
            finished = (transaction.written, transaction.madeHere)
            return commit
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
/// claims its ids, copies its events and upserts their rollups and completeness counts inside it, as a write of its
/// own would in its own transaction.
///
/// The partitions of new months are made beside it, on another connection, and committed at once: `ATTACH
/// PARTITION` waits for no writer of `events`. It does wait for a writer of the default partition (`events_other`,
/// times before 1900 or after 9999), which it checks for rows of the new month; once this transaction has written
/// such an event, a partition made beside it would wait for it forever, so it makes them itself (they then appear
/// to others, and the lock of partition creation is free again, only when it ends). It does so too when the store
/// may open only one connection.
final class PostgresIngestTransaction: IngestRowTransaction {
    let store: PostgresEventStore
    let connection: PostgresConnection
    /// The partitions written, by name: noted for their summaries once the transaction commits.
    private(set) var written: Set<String> = []
    /// The months (by start) whose partitions this transaction made itself: the store learns of them only once it
    /// commits.
    private(set) var madeHere: Set<Int64> = []

    init(store: PostgresEventStore, connection: PostgresConnection) {
        self.store = store
        self.connection = connection
    }

    func write(_ rows: [any IngestRows], losses: [DropReason: Int]) async throws(StoreError) -> Int {
        let prepared = PreparedWrite(try store.own(rows), losses: losses)
        guard !prepared.isEmpty else { return 0 }
        let (months, missing) = store.months(of: prepared.plan.timestamps, madeAlso: madeHere)
        if !missing.isEmpty, written.contains(PostgresEventStore.defaultPartition) || store.connectionLimit < 2 {
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
            return try await store.write(
                prepared, skipping: [], claimed: nil, now: PostgresEventStore.nowMilliseconds(), on: connection
            ).reduce(0, +)
        } catch {
            throw store.storeError(error, doing: "writing \(prepared.plan.candidates.count) events (--strict)")
        }
    }
}
