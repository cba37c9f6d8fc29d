import CSQLite
import Foundation
import MeasurementEvents

/// The one write path into `events`: redacts, inserts with a prepared statement (a duplicate id is
/// ignored), and aggregates the rollups of the rows really inserted, upserted once per group at commit.
///
/// Used by one thread at a time (``SQLiteEventSink`` and ``EventStore`` hold a lock around it).
package final class EventWriter {
    let connection: SQLiteConnection
    let redactor: Redactor
    private let insert: SQLiteStatement
    private let upsertRollup: SQLiteStatement
    private let upsertDayRollup: SQLiteStatement
    private let upsertSeriesRollup: SQLiteStatement
    private let upsertLoss: SQLiteStatement
    /// The hosted links funnel's rollups, kept alongside the event rollups.
    private let links: LinkRollupWriter
    private let begin: SQLiteStatement
    private let commitStatement: SQLiteStatement
    private let savepoint: SQLiteStatement
    private let release: SQLiteStatement
    private let rollbackToSavepoint: SQLiteStatement
    private var pending: [RollupKey: Int] = [:]
    /// The groups of the write in progress, merged into `pending` when it succeeds (kept for its capacity).
    private var groups: [RollupKey: Int] = [:]
    private var extra: [(String, String)] = []
    /// The positions of the batch being written, in insertion order (kept for its capacity).
    private var order: [Int] = []
    /// Whether rows were inserted since the last commit or rollback: if SQLite rolled the transaction back
    /// by itself (it may, after a full disk or an I/O error), ``commit()`` must fail, not find nothing to do.
    private var uncommittedRows = false

    init(connection: SQLiteConnection, redactor: Redactor) throws(StoreError) {
        self.connection = connection
        self.redactor = redactor
        insert = try connection.prepare(EventColumns.insertSQL)
        upsertRollup = try connection.prepare(RollupKey.upsertSQL)
        upsertDayRollup = try connection.prepare(RollupKey.dayUpsertSQL)
        upsertSeriesRollup = try connection.prepare(RollupKey.seriesUpsertSQL)
        upsertLoss = try connection.prepare(EmbeddedSQL.statement("upsert_completeness"))
        links = try LinkRollupWriter(connection: connection)
        begin = try connection.prepare("BEGIN IMMEDIATE")
        commitStatement = try connection.prepare("COMMIT")
        savepoint = try connection.prepare("SAVEPOINT write_batch")
        release = try connection.prepare("RELEASE write_batch")
        rollbackToSavepoint = try connection.prepare("ROLLBACK TO write_batch")
    }

    /// Whether a transaction is open.
    var inTransaction: Bool { connection.inTransaction }

    /// Opens a transaction when none is open.
    /// - Throws: when SQLite rolled back a transaction holding uncommitted rows by itself: a new one must not
    ///   start (and later commit) as if they were there; ``commit()`` or ``rollback()`` clears this.
    func beginIfNeeded() throws(StoreError) {
        guard !connection.inTransaction else { return }
        if uncommittedRows { throw rolledBackError }
        try begin.run()
    }

    private var rolledBackError: StoreError {
        StoreError(
            .io, path: connection.path,
            "SQLite rolled back the batch being written to \(connection.path) after an earlier error "
                + "(a full disk or an I/O error): free some space and write the events again")
    }

    /// Inserts `events` inside the open transaction (opening one when needed), all or none of them.
    /// - Parameters:
    ///   - redacted: `true` only when the caller already applied this writer's ``redactor`` to every event
    ///     (ingest does so on its reader thread).
    ///   - atomic: `false` when the caller rolls the whole transaction back on any error (ingest does), so
    ///     the events need no savepoint of their own. A savepoint copies every page the events change, as it
    ///     was before, into a temporary file: with random ids that is most of the id index for every batch
    ///     (1.2 GB of writes for 300,000 events, against 0.3 GB for the database and its WAL).
    /// - Returns: how many were new (duplicates of stored ids are not counted and change nothing).
    @discardableResult
    func write(
        _ events: some Collection<MeasurementEvent>, redacted: Bool = false, atomic: Bool = true
    ) throws(StoreError) -> Int {
        try beginIfNeeded()
        if atomic { try savepoint.run() }
        groups.removeAll(keepingCapacity: true)
        links.beginBatch()
        var inserted = 0
        // Redacted before the loop, a large batch on several cores at once (Redactor+Batch.swift).
        let batch = redacted ? Array(events) : redactor.redact(Array(events))
        sortByID(batch)
        do throws(StoreError) {
            for position in order {
                let event = batch[position]
                let key = EventColumns.bind(event, to: insert, extra: &extra)
                try insert.run()
                if connection.changes > 0 {
                    inserted += 1
                    groups[key, default: 0] += 1
                    links.add(event)
                }
            }
            if atomic { try release.run() }
        } catch {
            if atomic {
                try? rollbackToSavepoint.run()
                try? release.run()
            }
            throw error
        }
        pending.merge(groups, uniquingKeysWith: +)
        links.keepBatch()
        if inserted > 0 { uncommittedRows = true }
        return inserted
    }

    /// Puts the positions of `batch` in `order`, by id and then by position (so the first of two events with
    /// one id stays the one stored): a batch's entries then land on neighbouring pages of the `events_by_id`
    /// index instead of one random page each, which is most of the cost of random ids (docs/storage-layout.md).
    private func sortByID(_ batch: [MeasurementEvent]) {
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: batch.indices)
        order.sort { left, right in
            let leftID = batch[left].id
            let rightID = batch[right].id
            if leftID == rightID { return left < right }
            return leftID < rightID
        }
    }

    /// Upserts the pending rollups and commits the transaction (nothing to do when none is open).
    func commit() throws(StoreError) {
        guard connection.inTransaction else {
            pending.removeAll()
            links.reset()
            if uncommittedRows {
                uncommittedRows = false
                throw rolledBackError
            }
            return
        }
        let altered = redactor.takeConservativeRedactions()
        do throws(StoreError) {
            if altered > 0 {
                upsertLoss.bind(1, "altered")
                upsertLoss.bind(2, Redactor.conservativeReason)
                upsertLoss.bind(3, Int64(altered))
                upsertLoss.bind(4, Int64(Date().timeIntervalSince1970 * 1_000))
                try upsertLoss.run()
            }
            // The day and series groups are sums of the 15-minute groups: a few per transaction.
            var days: [RollupKey: Int] = [:]
            var series: [SeriesKey: Int] = [:]
            for (key, count) in pending {
                key.bind(to: upsertRollup, count: count)
                try upsertRollup.run()
                days[key.day, default: 0] += count
                series[key.series, default: 0] += count
            }
            for (key, count) in days {
                key.bind(to: upsertDayRollup, count: count)
                try upsertDayRollup.run()
            }
            for (key, count) in series {
                key.bind(to: upsertSeriesRollup, count: count)
                try upsertSeriesRollup.run()
            }
            pending.removeAll(keepingCapacity: true)
            try links.commit()
            try commitStatement.run()
            uncommittedRows = false
        } catch {
            redactor.restoreConservativeRedactions(altered)
            rollback()
            throw error
        }
    }

    /// Abandons the open transaction and its pending rollups.
    func rollback() {
        pending.removeAll()
        links.reset()
        uncommittedRows = false
        if connection.inTransaction { try? connection.execute("ROLLBACK") }
    }

    /// Adds loss counts to `completeness`: inside the open transaction when there is one, else in one of its own.
    func recordLosses(_ losses: [DropReason: Int], nowMilliseconds: Int64) throws(StoreError) {
        guard !losses.isEmpty else { return }
        let ownTransaction = !connection.inTransaction
        if ownTransaction { try begin.run() }
        do throws(StoreError) {
            for (reason, count) in losses.sorted(by: { $0.key < $1.key }) where count > 0 {
                upsertLoss.bind(1, EventWriter.kind(of: reason))
                upsertLoss.bind(2, reason.rawValue)
                upsertLoss.bind(3, Int64(count))
                upsertLoss.bind(4, nowMilliseconds)
                try upsertLoss.run()
            }
            if ownTransaction { try commitStatement.run() }
        } catch {
            if ownTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }

    /// `dropped` for events lost after the bus accepted them, `altered` for events stored with a value cut
    /// to the length limit, `rejected` for events refused (by the bus or by ingest over a limit).
    package static func kind(of reason: DropReason) -> String {
        switch reason {
        case .bufferFull, .sinkError: return "dropped"
        case .valueTruncated: return "altered"
        default: return "rejected"
        }
    }
}
