import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// The SQLite store keeps raw events for a while only when asked (docs/design/retention.md): its synchronous methods
/// answer ``EventRetention``'s `async` ones, as its ``EventBackend`` methods do (run them on a thread of their own
/// where a prune must not hold up a thread pool).
extension SQLiteEventStore: EventRetention {
    /// From when raw events exist: the retention horizon (Migrations/0021_create_retention_horizon.sql), or `nil`
    /// when the database was never pruned.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func rawEventsSince() throws(StoreError) -> Int64? {
        try withStore { store throws(SQLiteError) in try SQLiteEventStore.rawEventsSince(on: store.connection) }
    }

    /// The retention horizon of the database behind `connection`.
    static func rawEventsSince(on connection: SQLiteConnection) throws(SQLiteError) -> Int64? {
        let select = try connection.cachedStatement(EmbeddedSQL.statement("select_retention_horizon"))
        defer { select.reset() }
        guard try select.step(), !select.isNull(0) else { return nil }
        return select.int64(0)
    }

    /// Deletes the raw events before `cutoff` and their ids, in transactions of ``PruneOptions/batchSize`` events
    /// on a connection of its own, after raising the horizon to it; then gives the freed pages back to the file
    /// system by incremental vacuum (``SQLitePrune`` says how). A writer beside it, on this store or any other
    /// connection, waits for one of its transactions at most.
    ///
    /// ```swift
    /// let cutoff = RetentionPeriod("90d")!.cutoff(now: SystemEventClock().nowMilliseconds())
    /// let summary = try store.prune(before: cutoff, options: PruneOptions())
    /// ```
    /// - Returns: what was deleted (or, with ``PruneOptions/dryRun``, would be).
    /// - Throws: ``StoreError``: `.io` for a cut-off that is not the start of a UTC day, or when a transaction
    ///   failed (what was deleted before stays deleted and the horizon raised: prune again to finish).
    @discardableResult
    public func prune(before cutoff: Int64, options: PruneOptions) throws(StoreError) -> PruneSummary {
        guard RetentionPeriod.dayStart(of: cutoff) == cutoff else {
            throw StoreError(
                .io, path: path,
                "a prune's cut-off must be the start of a UTC day, not \(EventTime.rfc3339(milliseconds: cutoff))")
        }
        if options.dryRun { return try pruneEstimate(before: cutoff) }
        // The store's own writer must not hold the write lock the prune's connection waits for.
        try withStore { store throws(SQLiteError) in
            if store.writer.inTransaction { try store.writer.commit() }
        }
        do throws(SQLiteError) {
            let prune = try SQLitePrune(path: path, busyTimeout: busyTimeout, options: options, clock: clock)
            return try prune.run(before: cutoff)
        } catch {
            throw StoreError(error)
        }
    }

    /// What a prune before `cutoff` would delete: the events before it or before the horizon, if that is later.
    private func pruneEstimate(before cutoff: Int64) throws(StoreError) -> PruneSummary {
        try withStore { store throws(SQLiteError) in
            let horizon = max(cutoff, try SQLiteEventStore.rawEventsSince(on: store.connection) ?? cutoff)
            let count = try store.connection.prepare(EmbeddedSQL.statement("count_events_before"))
            count.bind(1, horizon)
            let events = try count.step() ? Int(count.int64(0)) : 0
            return PruneSummary(cutoff: cutoff, rawEventsSince: horizon, events: events)
        }
    }
}
