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
    /// The time completeness counts are stamped with.
    let clock: any EventClock
    /// Exact dedup for all time (Migrations/0011_index_event_ids_by_key.sql).
    let ids: EventIDIndex
    /// Events before it are refused (counted as `before_retention`): their raw rows and ids may be pruned.
    let horizon: RetentionHorizon
    /// The statements of the write path, prepared once.
    private let statements: Statements
    /// The report's rollups of the open transaction and the rows they are added to.
    private var rollups: EventRollups
    /// The hosted links funnel's rollups, kept alongside the event rollups.
    private let links: LinkRollupWriter
    /// The devices' losses (``DeviceLoss`` records stored as new) of the open transaction, and of the write in
    /// progress: added to completeness at commit, in the same transaction as the records.
    private var deviceLosses = DeviceLossTally()
    /// What the open transaction holds beyond its rows.
    private var transaction = TransactionState()
    /// The buffers of the row being inserted (kept for their capacity).
    private var row = EventColumns.RowScratch()
    /// The positions, id keys and newness of the batch being written (kept for their capacity).
    private var positions = BatchPositions()
    /// The dictionary new rows are packed with (``EventPacker``), once the database has one; also read by
    /// ``SQLiteEventStore/encode(_:)`` outside the store's lock.
    let packers: EventPacker.Slot
    /// This writer's packing: the dictionary it packs with and what it has tried (EventWriter+Packing.swift).
    var packing = PackingState()

    /// The statements of the write path.
    private struct Statements {
        let insert: SQLiteStatement
        let upsertLoss: SQLiteStatement
        let begin: SQLiteStatement
        let commit: SQLiteStatement
        let savepoint: SQLiteStatement
        let release: SQLiteStatement
        let rollbackToSavepoint: SQLiteStatement

        init(connection: SQLiteConnection) throws(SQLiteError) {
            insert = try connection.prepare(EventColumns.insertSQL)
            upsertLoss = try connection.prepare(EmbeddedSQL.statement("upsert_completeness"))
            begin = try connection.prepare("BEGIN IMMEDIATE")
            commit = try connection.prepare("COMMIT")
            savepoint = try connection.prepare("SAVEPOINT write_batch")
            release = try connection.prepare("RELEASE write_batch")
            rollbackToSavepoint = try connection.prepare("ROLLBACK TO write_batch")
        }
    }

    /// What the open transaction holds beyond its rows and rollups.
    private struct TransactionState {
        /// Whether rows were inserted since the last commit or rollback: if SQLite rolled the transaction back
        /// by itself (it may, after a full disk or an I/O error), ``EventWriter/commit()`` must fail, not find
        /// nothing to do.
        var uncommittedRows = false
        /// Values replaced whole in the encoded rows written since the last commit or rollback (counted as
        /// `altered` at commit; forgotten with the rows on rollback).
        var encodedRedactions = 0
    }

    /// The batch being written (``EventWriter/write(_:mode:)``), by position, kept for their capacity: the order
    /// its ids are looked up in (by id key), each id's key, and whether each event is new.
    private struct BatchPositions {
        var order: [Int] = []
        var keys: [Int64] = []
        var isNew: [Bool] = []
    }

    init(
        connection: SQLiteConnection, redactor: Redactor, clock: any EventClock = SystemEventClock(),
        packers: EventPacker.Slot = EventPacker.Slot()
    ) throws(SQLiteError) {
        self.connection = connection
        self.redactor = redactor
        self.clock = clock
        self.packers = packers
        ids = try EventIDIndex(connection: connection)
        horizon = try RetentionHorizon(connection: connection)
        statements = try Statements(connection: connection)
        rollups = try EventRollups(connection: connection)
        links = try LinkRollupWriter(connection: connection)
    }

    /// Whether a transaction is open.
    var inTransaction: Bool { connection.inTransaction }

    /// Whether rows were inserted since the last commit or rollback.
    var hasUncommittedRows: Bool { transaction.uncommittedRows }

    /// Opens a transaction when none is open.
    /// - Throws: when SQLite rolled back a transaction holding uncommitted rows by itself: a new one must not
    ///   start (and later commit) as if they were there; ``commit()`` or ``rollback()`` clears this.
    func beginIfNeeded() throws(SQLiteError) {
        guard !connection.inTransaction else { return }
        if transaction.uncommittedRows { throw rolledBackError }
        try statements.begin.run()
        do throws(SQLiteError) {
            if packing.packer == nil, EventPacker.isAvailable {
                try loadPacker()
                packers.current = packing.packer
            }
            try ids.transactionBegan()
            if try horizon.refresh(dataVersion: ids.dataVersion) {
                ids.forgetTransaction()  // a prune freed rowids this writer may have seen (RetentionHorizon)
                try ids.transactionBegan()
            }
            rollups.transactionBegan(dataVersion: ids.dataVersion, totalChanges: connection.totalChanges)
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private var rolledBackError: SQLiteError {
        SQLiteError(
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
    func write(_ events: some Collection<MeasurementEvent>, mode: WriteMode = .atomic) throws(SQLiteError) -> Int {
        try beginIfNeeded()
        let atomic = mode.usesSavepoint
        if atomic { try statements.savepoint.run() }
        rollups.batch.removeAll(keepingCapacity: true)
        deviceLosses.beginBatch()
        links.beginBatch()
        var inserted = 0
        let mark = ids.pendingMark
        let batch = Array(events)
        do throws(SQLiteError) {
            try findNew(batch)  // by id, which redaction does not change
            if batch.count < 2 * redactionSlice {
                // A small batch is redacted before the loop, on several cores at once (Redactor+Batch.swift).
                inserted = try insertNew(redactor.redact(batch), from: 0)
            } else {
                inserted = try insertNewRedactingAhead(batch)
            }
            if atomic { try statements.release.run() }
        } catch {
            if atomic {
                try? statements.rollbackToSavepoint.run()
                try? statements.release.run()
            }
            ids.abandon(from: mark)
            throw error
        }
        rollups.keepBatch()
        deviceLosses.keepBatch()
        links.keepBatch()
        if inserted > 0 {
            transaction.uncommittedRows = true
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
    private func insertNewRedactingAhead(_ batch: [MeasurementEvent]) throws(SQLiteError) -> Int {
        let slice = redactionSlice
        let isNew = positions.isNew
        let packer = packing.packer
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
            do throws(SQLiteError) {
                try ready.insertAll(with: statements.insert) { row, rowid in
                    ids.add(key: positions.keys[row.position], event: rowid)
                    if let loss = row.deviceLoss {
                        deviceLosses.add(loss, at: row.timestamp)  // a loss record, not an App Links event
                    } else if let link = row.link {
                        links.add(link, visitor: row.visitor)
                    }
                }
            } catch {
                _ = upcoming?.result()  // nothing of this write outlives it
                throw error
            }
            inserted += ready.rows.count
            rollups.batch.merge(ready.groups, uniquingKeysWith: +)
            start = next
        }
        return inserted
    }

    /// Inserts the events of `slice` (redacted) that ``findNew(_:)`` found new; the slice begins at `offset` of
    /// the write's batch.
    private func insertNew(_ slice: [MeasurementEvent], from offset: Int) throws(SQLiteError) -> Int {
        var inserted = 0
        for (index, event) in slice.enumerated() where positions.isNew[offset + index] {
            let key = try EventColumns.insert(event, with: statements.insert, packer: packing.packer, scratch: &row)
            ids.add(key: positions.keys[offset + index], event: connection.lastInsertRowID)
            inserted += 1
            if deviceLosses.add(event) { continue }  // a loss record, not an App Links event
            rollups.batch[key, default: 0] += 1
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
    func write(encoded batches: [EncodedEvents]) throws(SQLiteError) -> [Int] {
        try beginIfNeeded()
        try checkPacking(of: batches)
        try noteUnpackedRows(in: batches)
        links.beginBatch()
        deviceLosses.beginBatch()
        var inserted = [Int](repeating: 0, count: batches.count)
        // The rows inserted of each batch's rollup groups, added to the pending rollups once the write succeeded.
        var counted = batches.map { [Int](repeating: 0, count: $0.groups.count) }
        let mark = ids.pendingMark
        let order = EventWriter.keyOrder(of: batches)
        do throws(SQLiteError) {
            try EventWriter.withRows(of: batches[...]) { (batchRows) throws(SQLiteError) in
                for (rank, entry) in order.enumerated() {
                    guard let first = batchRows[entry.batch].baseAddress else {
                        preconditionFailure("an entry's batch holds rows")
                    }
                    let row = first + entry.row
                    if row.pointee.timestamp < horizon.since {
                        deviceLosses.refuse(.beforeRetention, at: clock.nowMilliseconds())
                        continue
                    }
                    guard try isNew(row.pointee.id, key: row.pointee.key, rank: rank, in: order, of: batches) else {
                        continue
                    }
                    try EventColumns.insertPacked(
                        timestamp: row.pointee.timestamp, success: row.pointee.success,
                        values: batches[entry.batch].values, range: row.pointee.values, with: statements.insert)
                    ids.add(key: row.pointee.key, event: connection.lastInsertRowID)
                    inserted[entry.batch] += 1
                    if let loss = row.pointee.deviceLoss {
                        deviceLosses.add(loss, at: row.pointee.timestamp)  // a loss record, not an App Links event
                        continue
                    }
                    counted[entry.batch][Int(row.pointee.group)] += 1
                    if let link = row.pointee.link { links.add(link, visitor: row.pointee.visitor) }
                }
            }
        } catch {
            ids.abandon(from: mark)
            throw error
        }
        for (batch, counts) in counted.enumerated() {
            for (group, count) in counts.enumerated() where count > 0 {
                rollups.add(batches[batch].groups[group], count)
            }
        }
        links.keepBatch()
        deviceLosses.keepBatch()
        transaction.encodedRedactions += batches.reduce(0) { $0 + $1.conservativeRedactions }
        if inserted.contains(where: { $0 > 0 }) {
            transaction.uncommittedRows = true
            try packIfDue()
        }
        return inserted
    }

    /// Calls `body` with the rows of each of `batches`, in place. A row read from an array's subscript is copied
    /// (a retain of each of its strings, then a release): 11% of the writer's time when `alstats serve` commits
    /// groups of requests.
    private static func withRows(
        of batches: ArraySlice<EncodedEvents>, reading buffers: [UnsafeBufferPointer<EncodedEvents.Row>] = [],
        _ body: ([UnsafeBufferPointer<EncodedEvents.Row>]) throws(SQLiteError) -> Void
    ) throws(SQLiteError) {
        guard let first = batches.first else { return try body(buffers) }
        let failure: SQLiteError? = first.rows.withUnsafeBufferPointer { rows in
            do throws(SQLiteError) {
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
    ) throws(SQLiteError) -> Bool {
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
    private func findNew(_ batch: [MeasurementEvent]) throws(SQLiteError) {
        // Held locally (their buffers moved, not copied), so that reading one array while writing another is no
        // overlapping access to the writer's property.
        var positions = BatchPositions()
        swap(&positions, &self.positions)
        defer { swap(&positions, &self.positions) }
        positions.keys.removeAll(keepingCapacity: true)
        for event in batch { positions.keys.append(ids.key(event.id)) }
        positions.order.removeAll(keepingCapacity: true)
        positions.order.append(contentsOf: batch.indices)
        let keys = positions.keys
        positions.order.sort { left, right in
            let leftKey = keys[left]
            let rightKey = keys[right]
            if leftKey == rightKey { return left < right }
            return leftKey < rightKey
        }
        positions.isNew.removeAll(keepingCapacity: true)
        positions.isNew.append(contentsOf: repeatElement(false, count: batch.count))
        let order = positions.order
        for (rank, position) in order.enumerated() {
            if batch[position].timestamp < horizon.since {
                deviceLosses.refuse(.beforeRetention, at: clock.nowMilliseconds())  // isNew stays false
                continue
            }
            positions.isNew[position] = try ids.isNew(batch[position].id, key: keys[position], rank: rank) {
                keys[order[$0]]
            } idAt: {
                batch[order[$0]].id
            }
        }
    }

    /// Upserts the pending rollups and commits the transaction (nothing to do when none is open).
    func commit() throws(SQLiteError) {
        guard connection.inTransaction else {
            let lostRows = transaction.uncommittedRows
            forgetTransaction()  // SQLite rolled back by itself: the pending id entries' rows are gone
            if lostRows { throw rolledBackError }
            return
        }
        let taken = redactor.takeConservativeRedactions()
        let altered = taken + transaction.encodedRedactions
        do throws(SQLiteError) {
            var losses = deviceLosses.take()
            losses.add([DropReason(rawValue: Redactor.conservativeReason): altered], at: clock.nowMilliseconds())
            try rollups.upsertPending()
            try recordLosses(losses)
            try links.commit()
            try packNotedRows()
            try ids.flush()
            try ids.mergeIfDue()
            try statements.commit.run()
            rollups.committed(totalChanges: connection.totalChanges)
            transaction = TransactionState()
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
        forgetTransaction()
        if connection.inTransaction { try? connection.execute("ROLLBACK") }
    }

    /// Forgets what the writer held for the transaction that ended without a commit: the pending rollups, losses
    /// and id entries, the rollup rows' rowids (rows it inserted are gone) and the dictionary it may have trained.
    private func forgetTransaction() {
        forgetPacker()
        rollups.reset()
        deviceLosses.reset()
        links.reset()
        ids.forgetTransaction()
        transaction = TransactionState()
    }

    /// Adds loss counts to `completeness`, on the UTC day of the clock's time (they happen as they are counted):
    /// inside the open transaction when there is one, else in one of its own.
    func recordLosses(_ losses: [DropReason: Int]) throws(SQLiteError) {
        var dated: [CompletenessKey: Int] = [:]
        dated.add(losses, at: clock.nowMilliseconds())
        try recordLosses(dated)
    }

    /// Adds loss counts to `completeness`, each on its day: inside the open transaction when there is one, else in
    /// one of its own.
    func recordLosses(_ losses: [CompletenessKey: Int]) throws(SQLiteError) {
        guard losses.values.contains(where: { $0 > 0 }) else { return }
        let ownTransaction = !connection.inTransaction
        if ownTransaction { try statements.begin.run() }
        do throws(SQLiteError) {
            for (key, count) in losses.sorted(by: { $0.key < $1.key }) where count > 0 {
                try upsertLoss(key, count)
            }
            if ownTransaction { try statements.commit.run() }
        } catch {
            if ownTransaction { try? connection.execute("ROLLBACK") }
            throw error
        }
    }
}

extension EventWriter {
    /// Adds `count` lost events to the completeness row of `key`, stamped with the clock's time.
    fileprivate func upsertLoss(_ key: CompletenessKey, _ count: Int) throws(SQLiteError) {
        statements.upsertLoss.bind(1, key.kind)
        statements.upsertLoss.bind(2, key.reason)
        statements.upsertLoss.bind(3, key.day)
        statements.upsertLoss.bind(4, Int64(count))
        statements.upsertLoss.bind(5, clock.nowMilliseconds())
        try statements.upsertLoss.run()
    }
}

/// A row of a group in the writer's key order (``EventWriter/write(encoded:)``).
private struct KeyOrderEntry {
    var key: Int64
    var batch: Int
    var row: Int
}
