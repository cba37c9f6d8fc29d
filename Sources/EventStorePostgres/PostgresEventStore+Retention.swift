import EventStoreInterface
import MeasurementEvents
import PostgresNIO

/// The PostgreSQL store keeps raw events for a while only when asked (docs/design/retention.md): a prune drops the
/// month partitions of `events` that lie wholly before its cut-off and deletes the rest in batches
/// (``PostgresPrune``); every write reads the horizon in its transaction and refuses older events.
extension PostgresEventStore: EventRetention {
    /// From when raw events exist: the retention horizon (Migrations/postgres/0012_create_retention_horizon.sql), or
    /// `nil` when the database was never pruned.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func rawEventsSince() async throws(StoreError) -> Int64? {
        try await withConnection(doing: "reading the retention horizon") { connection in
            try await self.rawEventsSince(on: connection)
        }
    }

    /// The retention horizon, read on `connection`.
    func rawEventsSince(on connection: PostgresConnection) async throws -> Int64? {
        let horizon =
            try await rows(PostgresSQL.statement("select_retention_horizon"), on: connection) {
                try $0[0].decode(Int64?.self)
            }.first ?? nil
        knownHorizon.withLock { $0 = horizon }
        return horizon
    }

    /// Deletes the raw events before `cutoff` and their ids after raising the horizon to it: drops each month
    /// partition that lies wholly before it, and deletes the events of a partition it covers in part in batches
    /// (``PostgresPrune`` says how, and which locks it waits for).
    ///
    /// ```swift
    /// let cutoff = RetentionPeriod("90d")!.cutoff(now: SystemEventClock().nowMilliseconds())
    /// let summary = try await store.prune(before: cutoff, options: PruneOptions())
    /// print(summary.partitionsDropped)   // ["events_2025_01", "events_2025_02", ...]
    /// ```
    /// - Returns: what was deleted (or, with ``PruneOptions/dryRun``, would be), and what was left for the next
    ///   prune because a lock was not had in time (``PruneSummary/deferred``).
    /// - Throws: ``StoreError``: `.io` for a cut-off that is not the start of a UTC day, when the horizon could not
    ///   be raised (nothing was deleted), or when a later step failed (what was deleted stays deleted: prune again).
    @discardableResult
    public func prune(before cutoff: Int64, options: PruneOptions) async throws(StoreError) -> PruneSummary {
        guard RetentionPeriod.dayStart(of: cutoff) == cutoff else {
            throw StoreError(
                .io, path: location,
                "a prune's cut-off must be the start of a UTC day, not \(EventTime.rfc3339(milliseconds: cutoff))")
        }
        var prune = PostgresPrune(store: self, options: options)
        if options.dryRun { return try await prune.estimate(before: cutoff) }
        return try await prune.run(before: cutoff)
    }

    /// The timestamps of `timestamps` that are not before the horizon the store last read (``knownHorizon``): the
    /// months a write makes partitions for (a pruned month would be made again, empty, for events it refuses).
    func partitionTimestamps(_ timestamps: [Int64]) -> [Int64] {
        guard let horizon = knownHorizon.withLock({ $0 }) else { return timestamps }
        return timestamps.filter { $0 >= horizon }
    }

    /// Reads and locks the retention horizon in the write's transaction on `connection` (Statements/
    /// lock_retention_horizon.sql), and marks the plan's events before it as skipped: they are neither claimed
    /// nor stored.
    /// - Returns: how many events it refused (not counting those `skipped` held already).
    func refuseBeforeHorizon(
        _ plan: PostgresWritePlan, skipping skipped: inout [Bool]?, on connection: PostgresConnection
    ) async throws -> Int {
        let horizon =
            try await rows(PostgresSQL.statement("lock_retention_horizon"), on: connection) {
                try $0[0].decode(Int64?.self)
            }.first ?? nil
        knownHorizon.withLock { $0 = horizon }
        guard let horizon, plan.timestamps.contains(where: { $0 < horizon }) else { return 0 }
        var marks = skipped ?? Array(repeating: false, count: plan.candidates.count)
        var refused = 0
        for (index, time) in plan.timestamps.enumerated() where time < horizon {
            if !marks[index] { refused += 1 }
            marks[index] = true
        }
        skipped = marks
        return refused
    }
}
