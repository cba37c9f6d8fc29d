import EventStoreInterface
import MeasurementEvents
import PostgresNIO

/// One prune of a PostgreSQL store (``PostgresEventStore/prune(before:options:)``, docs/design/retention.md).
///
/// 1. It raises the retention horizon (Statements/raise_retention_horizon.sql). The `UPDATE` waits for the writes
///    under way, which hold the horizon's row `FOR SHARE` (lock_retention_horizon.sql), at most
///    ``PruneOptions/lockTimeout``; past it nothing is deleted and the prune fails, saying so. Every write after it
///    refuses the events before the horizon.
/// 2. Each month partition of `events` that lies wholly before the horizon: its ids are deleted from `event_ids`
///    (one transaction), then its install path's events are copied to `pruned_install_events` and it is detached
///    and dropped (another: `ACCESS EXCLUSIVE` on `events` for the moment of
///    the catalog change, waited for at most ``PruneOptions/lockTimeout``, as Migrations/postgres/0007 waits, so that
///    a long read of `events` does not make every query queue behind the prune; past it the partition is left for
///    the next prune, in ``PruneSummary/deferred``). Dropping a month removes its files at once: no dead rows.
/// 3. A partition the horizon cuts (the month that holds it, or `events_before_1900`): its events before the horizon
///    and their ids are deleted in batches of ``PruneOptions/batchSize``, one transaction each, the install path's
///    events moved to `pruned_install_events`.
///
/// The install path's events (store taps, installs, first opens, deferred opens: Migrations/postgres/0013) are the
/// report's only record of the install funnel, so they are kept, as the SQLite prune keeps them in `events`.
/// 4. The hosted links' daily visitor hashes of the days before the horizon, in batches.
struct PostgresPrune {
    let store: PostgresEventStore
    let options: PruneOptions
    /// The transactions committed so far.
    private var transactions = 0

    init(store: PostgresEventStore, options: PruneOptions) {
        self.store = store
        self.options = options
    }

    /// A partition of `events` and its range of `ts_ms`, `nil` for MINVALUE or MAXVALUE.
    private struct Partition {
        var name: String
        var lower: Int64?
        var upper: Int64?

        /// Whether it lies wholly before `horizon` and is a month (not `events_before_1900`, which writers of
        /// times before 1900 need, even if they are refused).
        func isDroppable(before horizon: Int64) -> Bool {
            lower != nil && (upper.map { $0 <= horizon } ?? false)
        }

        /// Whether part of it lies before `horizon`.
        func starts(before horizon: Int64) -> Bool { (lower ?? .min) < horizon }
    }

    /// What a prune before `cutoff` would do, changing nothing.
    mutating func estimate(before cutoff: Int64) async throws(StoreError) -> PruneSummary {
        let store = self.store
        return try await store.withConnection(doing: "estimating a prune") { connection in
            let horizon = max(cutoff, try await store.rawEventsSince(on: connection) ?? cutoff)
            var binds = PostgresBindings()
            binds.append(horizon)
            let events =
                try await store.rows(PostgresSQL.statement("count_events_before"), binds, on: connection) {
                    Int(try $0[0].decode(Int64.self))
                }.first ?? 0
            var summary = PruneSummary(cutoff: cutoff, rawEventsSince: horizon, events: events)
            summary.partitionsDropped = try await Self.partitions(of: store, on: connection)
                .filter { $0.isDroppable(before: horizon) }.map(\.name)
            return summary
        }
    }

    /// Prunes before `cutoff` (steps 1 to 4).
    mutating func run(before cutoff: Int64) async throws(StoreError) -> PruneSummary {
        let horizon = try await raiseHorizon(to: cutoff)
        let store = self.store
        let partitions = try await store.withConnection(doing: "listing the partitions of events") { connection in
            try await Self.partitions(of: store, on: connection)
        }
        var summary = PruneSummary(cutoff: cutoff, rawEventsSince: horizon, events: 0)
        for partition in partitions {
            try stopIfCancelled()
            if partition.isDroppable(before: horizon) {
                if let events = try await drop(partition) {
                    summary.events += events
                    summary.partitionsDropped.append(partition.name)
                } else {
                    summary.deferred.append(
                        "\(partition.name): events was held by another session for more than "
                            + "\(options.lockTimeout); its ids are deleted, and the next prune drops it")
                }
            } else if partition.starts(before: horizon) {
                summary.events += try await deleteRows(of: partition, before: horizon)
            }
        }
        try await deleteLinkVisitors(before: horizon)
        summary.transactions = transactions
        return summary
    }

    /// Stops a prune whose task was cancelled (a server shutting down) before its next transaction: what was
    /// deleted stays deleted, and the next prune deletes the rest.
    private func stopIfCancelled() throws(StoreError) {
        guard Task.isCancelled else { return }
        throw StoreError(.io, path: store.location, "the prune of \(store.location) was stopped before its end")
    }

    /// Counts a transaction committed and calls ``PruneOptions/afterTransaction``.
    private mutating func committed() {
        transactions += 1
        options.afterTransaction?(transactions)
    }

    /// Step 1.
    private mutating func raiseHorizon(to cutoff: Int64) async throws(StoreError) -> Int64 {
        let (store, timeout) = (self.store, options.lockTimeout)
        let horizon = try await store.inTransaction(doing: "raising the retention horizon", lost: "nothing was deleted")
        { connection in
            try await store.setLockTimeout(timeout, on: connection)
            var binds = PostgresBindings()
            binds.append(cutoff)
            binds.append(store.clock.nowMilliseconds())
            do {
                return try await store.rows(PostgresSQL.statement("raise_retention_horizon"), binds, on: connection) {
                    try $0[0].decode(Int64.self)
                }.first ?? cutoff
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == PostgresEventStore.lockNotAvailable {
                throw StoreError(
                    .io, path: store.location,
                    "a write to \(store.location) held the retention horizon for more than \(timeout) (a strict "
                        + "ingest, or a long transaction of events): nothing was deleted; prune again once it ends")
            }
        }
        store.knownHorizon.withLock { $0 = horizon }
        committed()
        return horizon
    }

    /// The partitions of `events`.
    private static func partitions(
        of store: PostgresEventStore, on connection: PostgresConnection
    ) async throws -> [Partition] {
        try await store.rows(PostgresSQL.statement("select_event_partitions"), on: connection) { row in
            Partition(
                name: try row[0].decode(String.self), lower: try row[1].decode(Int64?.self),
                upper: try row[2].decode(Int64?.self))
        }
    }

    /// The text of statement `name` for `partition` (its `events_partition` replaced by the partition's name, which
    /// the catalog gave quoted where it must be).
    private static func statement(_ name: String, for partition: Partition) -> String {
        PostgresSQL.statement(name).replacingOccurrences(of: "events_partition", with: partition.name)
    }

    /// Step 2 for `partition`.
    /// - Returns: how many events it held, or `nil` when it could not be detached in time (its ids are deleted).
    private mutating func drop(_ partition: Partition) async throws(StoreError) -> Int? {
        let (store, timeout) = (self.store, options.lockTimeout)
        let events = try await store.inTransaction(doing: "deleting the ids of \(partition.name)") { connection in
            try await store.rows(Self.statement("delete_partition_ids", for: partition), on: connection) {
                Int(try $0[0].decode(Int64.self))
            }.first ?? 0
        }
        committed()
        let kept = try await store.inTransaction(doing: "dropping \(partition.name)") { connection -> Int? in
            try await store.setLockTimeout(timeout, on: connection)
            do {
                // The install path's events first (a read of this partition only), then the catalog change: the
                // copy is undone with the drop when the lock is not had in time.
                let copy = Self.statement("copy_partition_install_events", for: partition)
                let kept = try await store.rows(copy, on: connection) { Int(try $0[0].decode(Int64.self)) }.first ?? 0
                try await store.run("ALTER TABLE events DETACH PARTITION \(partition.name)", on: connection)
                try await store.run("DROP TABLE \(partition.name)", on: connection)
                return kept
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == PostgresEventStore.lockNotAvailable {
                return nil  // the transaction is aborted: its COMMIT rolls it back
            }
        }
        guard let kept else { return nil }
        committed()
        if let lower = partition.lower { _ = store.partitions.withLock { $0.remove(lower) } }
        return events - kept
    }

    /// Step 3 for `partition`.
    /// - Returns: how many events it deleted.
    private mutating func deleteRows(of partition: Partition, before horizon: Int64) async throws(StoreError) -> Int {
        try await inBatches(
            Self.statement("delete_pruned_rows", for: partition), before: horizon,
            doing: "deleting raw events of \(partition.name)")
    }

    /// Step 4.
    private mutating func deleteLinkVisitors(before horizon: Int64) async throws(StoreError) {
        _ = try await inBatches(
            PostgresSQL.statement("delete_pruned_link_visitors"), before: horizon,
            doing: "deleting the visitor hashes of pruned days")
    }

    /// Runs `sql` (a statement that deletes at most ``PruneOptions/batchSize`` rows before `horizon`, `$1`, and
    /// returns how many it did, and, in a second column if it has one, how many of them count as deleted events: not
    /// those moved to `pruned_install_events`), a transaction each time, until it deletes fewer.
    /// - Returns: the rows deleted in all (less those moved).
    private mutating func inBatches(
        _ sql: String, before horizon: Int64, doing what: String
    ) async throws(StoreError) -> Int {
        let (store, batch) = (self.store, options.batchSize)
        var total = 0
        while true {
            try stopIfCancelled()
            let deleted = try await store.inTransaction(doing: what) { connection in
                var binds = PostgresBindings()
                binds.append(horizon)
                binds.append(Int64(batch))
                return try await store.rows(sql, binds, on: connection) { row in
                    let rows = Int(try row[0].decode(Int64.self))
                    return (rows: rows, counted: row.count > 1 ? Int(try row[1].decode(Int64.self)) : rows)
                }.first ?? (rows: 0, counted: 0)
            }
            committed()
            total += deleted.counted
            if deleted.rows < batch { return total }
        }
    }
}
