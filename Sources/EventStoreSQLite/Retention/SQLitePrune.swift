import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// One prune of an SQLite store (``SQLiteEventStore/prune(before:options:)``, docs/design/retention.md), on a
/// connection of its own: the store's writer, and any other writer of the file (the collector's, a sink), are
/// other connections, which wait for one of its transactions at most.
///
/// 1. It raises the retention horizon to the cut-off (its first transaction): from the next transaction on, every
///    writer refuses older events (``RetentionHorizon``), so no event it deletes comes back.
/// 2. It notes the events before the horizon, with their ids' keys, in a temporary table of its own (a read, which
///    in WAL holds no writer up), and indexes that by key.
/// 3. It deletes the events in batches of ``PruneOptions/batchSize`` rowids, one transaction each (the events of a
///    time lie together: rows are stored in arrival order).
/// 4. It deletes their id index entries in batches in key order: each batch one range of the index's leaves, so the
///    whole prune passes over each leaf once, however random the ids.
/// 5. It deletes the daily visitor hashes of the hosted links before the horizon, in batches.
/// 6. It gives the freed pages back to the file system: `PRAGMA incremental_vacuum` in steps of
///    ``PruneOptions/vacuumPagesPerStep`` pages, one transaction each (a file made before incremental vacuum needs
///    one `VACUUM`: ``PruneOptions/fullVacuum``).
final class SQLitePrune {
    let connection: SQLiteConnection
    let options: PruneOptions
    let clock: any EventClock
    /// The transactions committed so far.
    private(set) var transactions = 0
    private let statements: Statements

    /// The prune's statements, prepared once.
    private struct Statements {
        let raiseHorizon: SQLiteStatement
        let readHorizon: SQLiteStatement
        let collect: SQLiteStatement
        let nextEvents: SQLiteStatement
        let deleteEvents: SQLiteStatement
        let greatestRowid: SQLiteStatement
        let raiseRowidEpoch: SQLiteStatement
        let lowerMoved: SQLiteStatement
        let nextKeys: SQLiteStatement
        let deleteIDs: SQLiteStatement
        let deleteRecentIDs: SQLiteStatement
        let deleteVisitors: SQLiteStatement

        init(connection: SQLiteConnection) throws(SQLiteError) {
            func statement(_ name: String) throws(SQLiteError) -> SQLiteStatement {
                try connection.prepare(EmbeddedSQL.statement(name))
            }
            // The temporary table must exist before a statement that reads it is prepared.
            try connection.execute(EmbeddedSQL.statement("create_prune_events"), doing: "preparing a prune")
            raiseHorizon = try statement("raise_retention_horizon")
            readHorizon = try statement("select_retention_horizon")
            collect = try statement("collect_pruned_events")
            nextEvents = try statement("next_pruned_events")
            deleteEvents = try statement("delete_pruned_events")
            greatestRowid = try statement("select_greatest_event_rowid")
            raiseRowidEpoch = try statement("raise_rowid_epoch")
            lowerMoved = try statement("lower_moved_event_ids")
            nextKeys = try statement("next_pruned_keys")
            deleteIDs = try statement("delete_pruned_event_ids")
            deleteRecentIDs = try statement("delete_pruned_recent_event_ids")
            deleteVisitors = try statement("delete_pruned_link_visitors")
        }
    }

    /// A prune of the database at `path`, on a connection of its own that waits up to `busyTimeout` for another
    /// writer's transaction.
    init(
        path: String, busyTimeout: Duration, options: PruneOptions, clock: any EventClock
    ) throws(SQLiteError) {
        var storeOptions = SQLiteEventStore.Options(create: false, integrityCheckLimit: 0, busyTimeout: busyTimeout)
        storeOptions.packFields = false
        connection = try SQLiteEventStore.openChecked(path: path, options: storeOptions)
        // The events it notes and the leaves it walks stay in memory between its reads and its deletes.
        try connection.execute("PRAGMA cache_size = -32768")
        self.options = options
        self.clock = clock
        statements = try Statements(connection: connection)
    }

    /// Prunes the raw events before `cutoff` (steps 1 to 6).
    /// - Returns: what was deleted and given back.
    func run(before cutoff: Int64) throws(SQLiteError) -> PruneSummary {
        let pageSize = try connection.scalarInt("PRAGMA page_size")
        let pagesBefore = try connection.scalarInt("PRAGMA page_count")
        let horizon = try raiseHorizon(to: cutoff)
        let events = try collect(before: horizon)
        if events > 0 {
            try deleteEvents()
            try deleteIDs()
        }
        try deleteLinkVisitors(before: horizon)
        try connection.execute("DELETE FROM temp.prune_events", doing: "finishing a prune")
        var summary = PruneSummary(cutoff: cutoff, rawEventsSince: horizon, events: events)
        summary.space = try returnSpace(pagesBefore: pagesBefore, pageSize: pageSize)
        summary.transactions = transactions
        return summary
    }

    /// Runs `body` in a transaction of its own (`BEGIN IMMEDIATE`, waiting at most the busy timeout for another
    /// writer's), counts it and calls ``PruneOptions/afterTransaction``.
    ///
    /// A cancelled task (a server shutting down) stops before the next transaction: what was deleted stays deleted,
    /// and the next prune deletes the rest.
    private func transaction(doing what: String, _ body: () throws(SQLiteError) -> Void) throws(SQLiteError) {
        if Task.isCancelled {
            throw SQLiteError(
                .io, path: connection.path, "the prune of \(connection.path) was stopped before its end: prune again")
        }
        try connection.immediateTransaction(doing: what, body)
        transactions += 1
        options.afterTransaction?(transactions)
    }

    /// Step 1: raises the horizon to `cutoff` (never lowers it).
    /// - Returns: the horizon now.
    private func raiseHorizon(to cutoff: Int64) throws(SQLiteError) -> Int64 {
        var horizon = cutoff
        try transaction(doing: "raising the retention horizon") { () throws(SQLiteError) in
            statements.raiseHorizon.bind(1, cutoff)
            statements.raiseHorizon.bind(2, clock.nowMilliseconds())
            try statements.raiseHorizon.run()
            defer { statements.readHorizon.reset() }
            if try statements.readHorizon.step(), !statements.readHorizon.isNull(0) {
                horizon = statements.readHorizon.int64(0)
            }
        }
        return horizon
    }

    /// Step 2: notes the events before `horizon` in `temp.prune_events`, and indexes them by key.
    /// - Returns: how many there are.
    private func collect(before horizon: Int64) throws(SQLiteError) -> Int {
        statements.collect.bind(1, horizon)
        try statements.collect.run()
        let count = connection.changes
        if count > 0 {
            try connection.execute(EmbeddedSQL.statement("index_prune_events"), doing: "sorting the events to prune")
        }
        return count
    }

    /// Step 3: deletes the noted events, a batch of rowids a transaction.
    private func deleteEvents() throws(SQLiteError) {
        var last = Int64.min
        while let end = try nextBatchEnd(after: last) {
            try transaction(doing: "deleting raw events") { () throws(SQLiteError) in
                let greatest = try greatestRowid()
                statements.deleteEvents.bind(1, last)
                statements.deleteEvents.bind(2, end)
                try statements.deleteEvents.run()
                let left = try greatestRowid()
                if left < greatest {
                    try statements.raiseRowidEpoch.run()
                    statements.lowerMoved.bind(1, left)
                    try statements.lowerMoved.run()
                }
            }
            last = end
        }
    }

    /// The last rowid of the batch of noted events after `last`, or `nil` when none is left.
    private func nextBatchEnd(after last: Int64) throws(SQLiteError) -> Int64? {
        let next = statements.nextEvents
        defer { next.reset() }
        next.bind(1, last)
        next.bind(2, Int64(options.batchSize))
        return try next.step() ? next.int64(0) : nil
    }

    private func greatestRowid() throws(SQLiteError) -> Int64 {
        defer { statements.greatestRowid.reset() }
        return try statements.greatestRowid.step() ? statements.greatestRowid.int64(0) : 0
    }

    /// Step 4: deletes the noted events' entries from both stored levels of the id index, a batch of keys (in
    /// key order) a transaction.
    private func deleteIDs() throws(SQLiteError) {
        var last = (key: Int64.min, event: Int64.min)
        while true {
            let next = statements.nextKeys
            next.bind(1, last.key)
            next.bind(2, last.event)
            next.bind(3, Int64(options.batchSize))
            guard try next.step() else {
                next.reset()
                return
            }
            let end = (key: next.int64(0), event: next.int64(1))
            next.reset()
            try transaction(doing: "deleting the ids of raw events") { () throws(SQLiteError) in
                for delete in [statements.deleteIDs, statements.deleteRecentIDs] {
                    delete.bind(1, last.key)
                    delete.bind(2, last.event)
                    delete.bind(3, end.key)
                    delete.bind(4, end.event)
                    try delete.run()
                }
            }
            last = end
        }
    }

    /// Step 5: deletes the hosted links' daily visitor hashes of the days before `horizon`, a batch a transaction.
    private func deleteLinkVisitors(before horizon: Int64) throws(SQLiteError) {
        var deleted = options.batchSize
        while deleted == options.batchSize {
            try transaction(doing: "deleting the visitor hashes of pruned days") { () throws(SQLiteError) in
                statements.deleteVisitors.bind(1, horizon)
                statements.deleteVisitors.bind(2, Int64(options.batchSize))
                try statements.deleteVisitors.run()
                deleted = connection.changes
            }
        }
    }

    /// Step 6: gives the free pages back to the file system, as the file's `auto_vacuum` allows.
    private func returnSpace(pagesBefore: Int64, pageSize: Int64) throws(SQLiteError) -> PruneSummary.Space {
        let mode = try connection.scalarInt("PRAGMA auto_vacuum")  // 0 NONE, 1 FULL, 2 INCREMENTAL
        if options.fullVacuum {
            if mode != 2 { try connection.execute("PRAGMA auto_vacuum = INCREMENTAL") }
            try connection.execute("VACUUM", doing: "rebuilding the file without its free pages")
            transactions += 1
            options.afterTransaction?(transactions)
        } else if mode == 2 {
            // Bounded, in case writers free pages as fast as the steps give them back.
            var steps = try connection.scalarInt("PRAGMA freelist_count") / Int64(options.vacuumPagesPerStep) + 2
            while steps > 0, try connection.scalarInt("PRAGMA freelist_count") > 0 {
                try connection.execute(
                    "PRAGMA incremental_vacuum(\(options.vacuumPagesPerStep))", doing: "giving free pages back")
                transactions += 1
                options.afterTransaction?(transactions)
                steps -= 1
            }
        } else if mode == 0 {
            return .needsFullVacuum(freeBytes: Int(try connection.scalarInt("PRAGMA freelist_count") * pageSize))
        }
        // A checkpoint that copies the whole WAL also cuts the file to its pages; it waits for no one.
        _ = try connection.scalarInt("PRAGMA wal_checkpoint(PASSIVE)")
        let pagesAfter = try connection.scalarInt("PRAGMA page_count")
        return .returned(bytes: Int(max(0, pagesBefore - pagesAfter) * pageSize))
    }
}
