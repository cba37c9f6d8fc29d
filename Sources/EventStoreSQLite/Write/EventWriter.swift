import CSQLite
import EventStoreInterface
import Foundation
import MeasurementEvents
import SQLiteSupport

/// The one write path into `events`: redacts, inserts with a prepared statement (an id already stored, by
/// the exact id index ``EventIDIndex``, is skipped), and aggregates the rollups of the rows really inserted, upserted once per group at commit.
///
/// Used by one thread at a time (``SQLiteEventSink`` and ``SQLiteEventStore`` hold a lock around it).
package final class EventWriter {
    let connection: SQLiteConnection
    let redactor: Redactor
    private let insert: SQLiteStatement
    /// Exact dedup for all time (Migrations/0011_index_event_ids_by_key.sql).
    let ids: EventIDIndex
    /// The rollup rows counted into, by group, for each of the three rollup tables.
    private var rollupRows: RollupRows<RollupKey>
    private var dayRollupRows: RollupRows<RollupKey>
    private var seriesRollupRows: RollupRows<SeriesKey>
    /// `PRAGMA data_version` and the connection's ``SQLiteConnection/totalChanges`` as this writer's own
    /// transactions left them: when either differs at the next one, something else wrote (another connection, or
    /// another statement on this one, such as a rebuild of the rollups) and the rollup rows' rowids are forgotten.
    private var rollupRowsDataVersion: Int64?
    private var rollupRowsChanges: Int64?
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
    /// The devices' losses (``DeviceLoss`` records stored as new) of the open transaction, and of the write in
    /// progress: added to completeness at commit, in the same transaction as the records.
    private var deviceLosses = DeviceLossTally()
    private var extra: [(String, String)] = []
    /// The buffers of the row being packed (kept for their capacity).
    private var packScratch = PackedFields.Scratch()
    /// The text and blob values of the row being inserted (kept for its capacity).
    private var values = BoundValues()
    /// The positions of the batch being written, in insertion order (kept for its capacity).
    private var order: [Int] = []
    /// The id keys of the batch being written, by position (kept for its capacity).
    private var keys: [Int64] = []
    /// Whether each event of the batch being written is new, by position (kept for its capacity).
    private var isNew: [Bool] = []
    /// Whether rows were inserted since the last commit or rollback: if SQLite rolled the transaction back
    /// by itself (it may, after a full disk or an I/O error), ``commit()`` must fail, not find nothing to do.
    private(set) var uncommittedRows = false
    /// Values replaced whole in the encoded rows written since the last commit or rollback (counted as
    /// `altered` at commit; forgotten with the rows on rollback).
    private var encodedRedactions = 0
    /// The dictionary new rows are packed with (``EventPacker``), once the database has one; also read by
    /// ``SQLiteEventStore/encode(_:)`` outside the store's lock.
    let packers: EventPacker.Slot
    /// The dictionary this writer packs with (read per event without the slot's lock); `packers.current` is set to
    /// it once it is there to stay within the transaction (EventWriter+Packing.swift).
    var packer: EventPacker?
    /// The last rowid this writer's commit trained a dictionary at without getting one (too few long fields).
    var packingTriedAt: Int64 = 0
    /// The first rowid of the open transaction's rows that were encoded unpacked while this writer packs (see
    /// ``noteUnpackedRows(in:)``), packed at commit.
    var unpackedFrom: Int64?
    /// The statement reading the database's latest dictionary, prepared at its first use.
    var selectPacker: SQLiteStatement?

    init(
        connection: SQLiteConnection, redactor: Redactor, packers: EventPacker.Slot = EventPacker.Slot()
    ) throws(StoreError) {
        self.connection = connection
        self.redactor = redactor
        self.packers = packers
        insert = try connection.prepare(EventColumns.insertSQL)
        ids = try EventIDIndex(connection: connection)
        rollupRows = try RollupRows(connection: connection, upsertSQL: RollupKey.upsertSQL, table: "event_rollup")
        dayRollupRows = try RollupRows(
            connection: connection, upsertSQL: RollupKey.dayUpsertSQL, table: "event_rollup_day")
        seriesRollupRows = try RollupRows(
            connection: connection, upsertSQL: RollupKey.seriesUpsertSQL, table: "event_rollup_series")
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
        do throws(StoreError) {
            if packer == nil, EventPacker.isAvailable {
                try loadPacker()
                packers.current = packer
            }
            try ids.transactionBegan()
            if ids.dataVersion != rollupRowsDataVersion || connection.totalChanges != rollupRowsChanges {
                forgetRollupRows()
                rollupRowsDataVersion = ids.dataVersion
            }
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private var rolledBackError: StoreError {
        StoreError(
            .io, path: connection.path,
            "SQLite rolled back the batch being written to \(connection.path) after an earlier error "
                + "(a full disk or an I/O error): free some space and write the events again")
    }

    /// Inserts `events` inside the open transaction (opening one when needed), all or none of them.
    /// - Parameters:
    ///   - mode: ``WriteMode/atomic`` (a savepoint of their own), or without one when the caller rolls the whole
    ///     transaction back on any error. The writer redacts the events either way.
    /// - Returns: how many were new (duplicates of stored ids, or of ids earlier in `events`, are not counted
    ///   and change nothing).
    @discardableResult
    func write(_ events: some Collection<MeasurementEvent>, mode: WriteMode = .atomic) throws(StoreError) -> Int {
        try beginIfNeeded()
        let atomic = mode.usesSavepoint
        if atomic { try savepoint.run() }
        groups.removeAll(keepingCapacity: true)
        deviceLosses.beginBatch()
        links.beginBatch()
        var inserted = 0
        let mark = ids.pendingMark
        let batch = Array(events)
        do throws(StoreError) {
            try findNew(batch)  // by id, which redaction does not change
            if batch.count < 2 * redactionSlice {
                // A small batch is redacted before the loop, on several cores at once (Redactor+Batch.swift).
                inserted = try insertNew(redactor.redact(batch), from: 0)
            } else {
                inserted = try insertNewRedactingAhead(batch)
            }
            if atomic { try release.run() }
        } catch {
            if atomic {
                try? rollbackToSavepoint.run()
                try? release.run()
            }
            ids.abandon(from: mark)
            throw error
        }
        pending.merge(groups, uniquingKeysWith: +)
        deviceLosses.keepBatch()
        links.keepBatch()
        if inserted > 0 {
            uncommittedRows = true
            try packIfDue()
        }
        return inserted
    }

    /// The events a large batch is redacted by, one slice ahead of the inserts. A test seam: tests lower it so
    /// that a few hundred events make several slices.
    var redactionSlice = 2_048

    /// Inserts the new events of `batch`, packing each slice of ``redactionSlice`` events on another thread while
    /// the slice before it is inserted (``PackedSlice``): on the sink's large batches the inserts and the rest
    /// of the work (redaction, columns, rollup keys) then overlap instead of taking turns.
    private func insertNewRedactingAhead(_ batch: [MeasurementEvent]) throws(StoreError) -> Int {
        let slice = redactionSlice
        let isNew = isNew
        let packer = packer
        var upcoming: PackJob? = PackJob.start(
            batch, range: 0..<slice, isNew: isNew, redactor: redactor, packer: packer)
        var inserted = 0
        var start = 0
        while let job = upcoming {
            let ready = job.result()
            let next = start + slice
            upcoming =
                next < batch.count
                ? PackJob.start(
                    batch, range: next..<min(next + slice, batch.count), isNew: isNew, redactor: redactor,
                    packer: packer)
                : nil
            do throws(StoreError) {
                try ready.insertAll(with: insert) { row, rowid in
                    ids.add(key: keys[row.position], event: rowid)
                    if let loss = row.deviceLoss {
                        deviceLosses.add(loss)  // a loss record, not an App Links event
                    } else if let link = row.link {
                        links.add(link, visitor: row.visitor)
                    }
                }
            } catch {
                _ = upcoming?.result()  // nothing of this write outlives it
                throw error
            }
            inserted += ready.rows.count
            groups.merge(ready.groups, uniquingKeysWith: +)
            start = next
        }
        return inserted
    }

    /// Inserts the events of `slice` (redacted) that ``findNew(_:)`` found new; the slice begins at `offset` of
    /// the write's batch.
    private func insertNew(_ slice: [MeasurementEvent], from offset: Int) throws(StoreError) -> Int {
        var inserted = 0
        for (index, event) in slice.enumerated() where isNew[offset + index] {
            let key = try EventColumns.insert(
                event, with: insert, values: &values, extra: &extra, packer: packer, scratch: &packScratch)
            ids.add(key: keys[offset + index], event: connection.lastInsertRowID)
            inserted += 1
            if deviceLosses.add(event) { continue }  // a loss record, not an App Links event
            groups[key, default: 0] += 1
            links.add(event)
        }
        return inserted
    }

    /// Inserts the rows of `batches` inside the open transaction (opening one when needed), merged and in id-key
    /// order across all of them, and counts per batch the rows that were new. An id met again (stored earlier,
    /// or earlier in this call: in an earlier batch, or earlier in the same one) is a duplicate of the first.
    ///
    /// Not atomic: the caller rolls the whole transaction back on any error (``SQLiteEventStore/writeBatches(encoded:losses:)``).
    /// - Returns: for each batch, in order, how many of its rows were new.
    func write(encoded batches: [EncodedEvents]) throws(StoreError) -> [Int] {
        try beginIfNeeded()
        try checkPacking(of: batches)
        try noteUnpackedRows(in: batches)
        links.beginBatch()
        deviceLosses.beginBatch()
        var inserted = [Int](repeating: 0, count: batches.count)
        let mark = ids.pendingMark
        let order = EventWriter.keyOrder(of: batches)
        do throws(StoreError) {
            try EventWriter.withRows(of: batches[...]) { (batchRows) throws(StoreError) in
                for (rank, entry) in order.enumerated() {
                    guard let first = batchRows[entry.batch].baseAddress else {
                        preconditionFailure("an entry's batch holds rows")
                    }
                    let row = first + entry.row
                    guard try isNew(row.pointee.id, key: row.pointee.key, rank: rank, in: order, of: batches) else {
                        continue
                    }
                    try EventColumns.insertPacked(
                        timestamp: row.pointee.timestamp, success: row.pointee.success,
                        values: batches[entry.batch].values, range: row.pointee.values, with: insert)
                    ids.add(key: row.pointee.key, event: connection.lastInsertRowID)
                    inserted[entry.batch] += 1
                    if let loss = row.pointee.deviceLoss {
                        deviceLosses.add(loss)  // a loss record, not an App Links event
                        continue
                    }
                    pending[row.pointee.rollup, default: 0] += 1
                    if let link = row.pointee.link { links.add(link, visitor: row.pointee.visitor) }
                }
            }
        } catch {
            ids.abandon(from: mark)
            throw error
        }
        links.keepBatch()
        deviceLosses.keepBatch()
        encodedRedactions += batches.reduce(0) { $0 + $1.conservativeRedactions }
        if inserted.contains(where: { $0 > 0 }) {
            uncommittedRows = true
            try packIfDue()
        }
        return inserted
    }

    /// Calls `body` with the rows of each of `batches`, in place. A row read from an array's subscript is copied
    /// (a retain of each of its strings, then a release): 11% of the writer's time when `alstats serve` commits
    /// groups of requests.
    private static func withRows(
        of batches: ArraySlice<EncodedEvents>, reading buffers: [UnsafeBufferPointer<EncodedEvents.Row>] = [],
        _ body: ([UnsafeBufferPointer<EncodedEvents.Row>]) throws(StoreError) -> Void
    ) throws(StoreError) {
        guard let first = batches.first else { return try body(buffers) }
        let failure: StoreError? = first.rows.withUnsafeBufferPointer { rows in
            do throws(StoreError) {
                try withRows(of: batches.dropFirst(), reading: buffers + [rows], body)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Whether `row`, at `rank` in the group's key order, is new: no earlier entry of the group with its key
    /// holds its id, and the id index does not hold it.
    private func isNew(
        _ id: EventID, key: Int64, rank: Int, in order: [KeyOrderEntry], of batches: [EncodedEvents]
    ) throws(StoreError) -> Bool {
        try ids.isNew(id, key: key, rank: rank) {
            order[$0].key
        } idAt: {
            batches[order[$0].batch].rows[order[$0].row].id
        }
    }

    /// The rows of `batches` as (batch, row) positions by id key, then batch, then row: one sort of integers per
    /// group, cheap because each batch is already in key order (the sort merges runs), so the group's lookups and
    /// entries land on neighbouring pages of the id index.
    private static func keyOrder(of batches: [EncodedEvents]) -> [KeyOrderEntry] {
        var order: [KeyOrderEntry] = []
        order.reserveCapacity(batches.reduce(0) { $0 + $1.count })
        for (batch, encoded) in batches.enumerated() {
            for (row, item) in encoded.rows.enumerated() {
                order.append(KeyOrderEntry(key: item.key, batch: batch, row: row))
            }
        }
        if batches.count > 1 {
            order.sort { ($0.key, $0.batch, $0.row) < ($1.key, $1.batch, $1.row) }
        }
        return order
    }

    /// Sets `isNew` for each event of `batch`: its id is neither stored nor held by an earlier event of the
    /// batch (the first of two events with one id is the one stored). The ids are looked up in key order, so
    /// a batch's lookups land on neighbouring pages of the id index instead of one random page each
    /// (docs/design/storage-layout.md); the events are then inserted in the order they came.
    private func findNew(_ batch: [MeasurementEvent]) throws(StoreError) {
        keys.removeAll(keepingCapacity: true)
        for event in batch { keys.append(ids.key(event.id)) }
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: batch.indices)
        order.sort { left, right in
            let leftKey = keys[left]
            let rightKey = keys[right]
            if leftKey == rightKey { return left < right }
            return leftKey < rightKey
        }
        isNew.removeAll(keepingCapacity: true)
        isNew.append(contentsOf: repeatElement(false, count: batch.count))
        for (rank, position) in order.enumerated() {
            isNew[position] = try ids.isNew(batch[position].id, key: keys[position], rank: rank) {
                keys[order[$0]]
            } idAt: {
                batch[order[$0]].id
            }
        }
    }

    /// Upserts the pending rollups and commits the transaction (nothing to do when none is open).
    func commit() throws(StoreError) {
        guard connection.inTransaction else {
            forgetPacker()
            pending.removeAll()
            deviceLosses.reset()
            encodedRedactions = 0
            links.reset()
            ids.forgetTransaction()  // SQLite rolled back by itself: the pending id entries' rows are gone
            forgetRollupRows()
            if uncommittedRows {
                uncommittedRows = false
                throw rolledBackError
            }
            return
        }
        let taken = redactor.takeConservativeRedactions()
        let altered = taken + encodedRedactions
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
                try rollupRows.add(count, to: key) { key.bind(to: $0, count: count) }
                days[key.day, default: 0] += count
                series[key.series, default: 0] += count
            }
            for (key, count) in days {
                try dayRollupRows.add(count, to: key) { key.bind(to: $0, count: count) }
            }
            for (key, count) in series {
                try seriesRollupRows.add(count, to: key) { key.bind(to: $0, count: count) }
            }
            pending.removeAll(keepingCapacity: true)
            try recordLosses(deviceLosses.take(), nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1_000))
            try links.commit()
            try packNotedRows()
            try ids.flush()
            try ids.mergeIfDue()
            try commitStatement.run()
            rollupRowsChanges = connection.totalChanges
            uncommittedRows = false
            encodedRedactions = 0
        } catch {
            redactor.restoreConservativeRedactions(taken)
            rollback()
            throw error
        }
    }

    /// Whether this writer packs the database once it holds ``EventPacker/trainingThreshold`` events
    /// (``SQLiteEventStore/Options/packFields``). A database packed already is packed into by every writer.
    var packsFields = false

    /// Abandons the open transaction and its pending rollups.
    func rollback() {
        forgetPacker()
        pending.removeAll()
        deviceLosses.reset()
        encodedRedactions = 0
        links.reset()
        ids.forgetTransaction()
        forgetRollupRows()
        uncommittedRows = false
        if connection.inTransaction { try? connection.execute("ROLLBACK") }
    }

    /// Forgets the rowids of the rollup rows this connection counted into (``RollupRows``): after a rollback
    /// (rows it inserted are gone), or when something else wrote since this writer's last commit.
    private func forgetRollupRows() {
        rollupRows.forget()
        dayRollupRows.forget()
        seriesRollupRows.forget()
    }

    /// Adds loss counts to `completeness`: inside the open transaction when there is one, else in one of its own.
    func recordLosses(_ losses: [DropReason: Int], nowMilliseconds: Int64) throws(StoreError) {
        guard !losses.isEmpty else { return }
        let ownTransaction = !connection.inTransaction
        if ownTransaction { try begin.run() }
        do throws(StoreError) {
            for (reason, count) in losses.sorted(by: { $0.key < $1.key }) where count > 0 {
                upsertLoss.bind(1, reason.completenessKind)
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
}

/// A row of a group in the writer's key order (``EventWriter/write(encoded:)``).
private struct KeyOrderEntry {
    var key: Int64
    var batch: Int
    var row: Int
}
