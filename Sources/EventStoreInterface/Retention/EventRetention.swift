/// How a store keeps its raw events for a while only (docs/design/retention.md): `alstats prune` and the
/// `retention` setting of `alstats serve` delete the raw events before a cut-off, while the rollups, the link visitor
/// counts and completeness keep the history, so that the report stays exact for every window of whole 15-minute
/// buckets. Both backends implement it; StoreOpening's `OpenedStore.retention` is the one a program uses.
///
/// A prune first records its cut-off as the store's horizon (``rawEventsSince()``), from which on every writer
/// refuses an older event (counted in completeness as ``MeasurementEvents/DropReason/beforeRetention``): the id of
/// a deleted event is deleted with it, and without the horizon the same event sent again would be counted twice.
/// Then it deletes in bounded transactions, so that a writer beside it never waits for more than one of them.
///
/// ```swift
/// let retention: any EventRetention = opened.retention
/// let cutoff = RetentionPeriod("90d")!.cutoff(now: clock.nowMilliseconds())
/// let summary = try await retention.prune(before: cutoff, options: PruneOptions())
/// print(summary.events, "raw events deleted; raw events since", summary.rawEventsSince)
/// ```
public protocol EventRetention: AnyObject, Sendable {
    /// From when raw events exist: the horizon of the last prune (the start of a UTC day, ms since the Unix
    /// epoch), or `nil` when the store was never pruned.
    /// - Throws: ``StoreError`` when the store cannot be read.
    func rawEventsSince() async throws(StoreError) -> Int64?

    /// Deletes the raw events before `cutoff` (the start of a UTC day; ``RetentionPeriod/cutoff(now:)``) and what
    /// indexes them, after raising the store's horizon to it. A cut-off at or before the horizon deletes what an
    /// interrupted prune left and leaves the horizon as it is; the horizon never moves back.
    /// With ``PruneOptions/dryRun`` nothing changes: the summary says what would be deleted.
    /// - Returns: what was deleted (or would be), and the horizon now.
    /// - Throws: ``StoreError`` when the store cannot be written (what was deleted before stays deleted, and the
    ///   horizon stays raised: prune again to finish), or `.io` for a cut-off that is not the start of a UTC day.
    @discardableResult
    func prune(before cutoff: Int64, options: PruneOptions) async throws(StoreError) -> PruneSummary
}

/// How ``EventRetention/prune(before:options:)`` works.
public struct PruneOptions: Sendable {
    /// Change nothing; count what would be deleted.
    public var dryRun: Bool
    /// The most raw events (and their ids) one transaction deletes: what a writer beside the prune may wait for
    /// at most.
    public var batchSize: Int
    /// SQLite: the most pages one step of the incremental vacuum returns to the file system (16 KiB each).
    public var vacuumPagesPerStep: Int
    /// SQLite: rebuild the whole file (`VACUUM`) after deleting, which also switches a file made before
    /// incremental vacuum (`auto_vacuum` NONE) to it. It holds the database for as long as copying it takes, and
    /// needs as much free disk.
    public var fullVacuum: Bool
    /// PostgreSQL: how long a step waits for a lock (the horizon's row behind a long write, `events` behind a long
    /// read when a partition is dropped) before it gives up and leaves that step for the next prune.
    public var lockTimeout: Duration
    /// Called after each transaction the prune commits, with the number of transactions so far: tests write beside
    /// the prune there, to check that nothing holds the database between two transactions.
    package var afterTransaction: (@Sendable (Int) -> Void)?

    /// Options; by default 50,000 events a transaction, 2,048 pages a vacuum step, no full vacuum, a 5-second
    /// lock timeout.
    public init(
        dryRun: Bool = false, batchSize: Int = 50_000, vacuumPagesPerStep: Int = 2_048, fullVacuum: Bool = false,
        lockTimeout: Duration = .seconds(5)
    ) {
        self.dryRun = dryRun
        self.batchSize = max(1, batchSize)
        self.vacuumPagesPerStep = max(1, vacuumPagesPerStep)
        self.fullVacuum = fullVacuum
        self.lockTimeout = lockTimeout
    }
}

/// What a prune deleted (or, for a dry run, would delete).
public struct PruneSummary: Sendable, Hashable {
    /// The cut-off asked for.
    public var cutoff: Int64
    /// The store's horizon afterwards (for a dry run: as it would be): raw events exist from it on.
    public var rawEventsSince: Int64
    /// Raw events deleted (or that would be).
    public var events: Int
    /// PostgreSQL: the month partitions dropped whole (or that would be), by name.
    public var partitionsDropped: [String] = []
    /// What was left for the next prune, and why (a lock not had in time): empty when everything was done.
    public var deferred: [String] = []
    /// The transactions that deleted rows: a writer beside the prune waited for one of them at most.
    public var transactions = 0
    /// What happened to the space the deleted rows took.
    public var space: Space = .keptByDatabase

    /// Creates a summary.
    public init(cutoff: Int64, rawEventsSince: Int64, events: Int) {
        self.cutoff = cutoff
        self.rawEventsSince = rawEventsSince
        self.events = events
    }

    /// What happened to the space of the deleted rows.
    public enum Space: Sendable, Hashable {
        /// The database keeps it for its next rows (PostgreSQL, where a dropped partition's files are removed and
        /// autovacuum makes the rest reusable; a dry run).
        case keptByDatabase
        /// SQLite: the file gave back this many bytes (incremental vacuum, or `--vacuum`).
        case returned(bytes: Int)
        /// SQLite: the file was made before incremental vacuum (`auto_vacuum` NONE), so its free pages are reused
        /// by new rows but not given back; this many bytes are free in it. `--vacuum` rebuilds it once.
        case needsFullVacuum(freeBytes: Int)
    }
}
