import EventStore
import Foundation
import MeasurementEvents

/// The events of a database that `destination` has not answered yet, in arrival (rowid) order after the
/// `push_cursor` row of `destination` (the uploader's schema, `Migrations/upload/`); a receipt moves the cursor
/// past its batch, in the same transaction that counts the batch's rejected lines in `push_losses`.
///
/// The `events` table is EventStore's: the two statements that read it are EventStore's own
/// (`select_events_for_push`, `count_events_between`), the cursor's and the losses' are the uploader's.
final class PushSource: UploadSource, @unchecked Sendable {
    // @unchecked Sendable: `connection` is only used under `lock`.

    let destination: String
    private let path: String
    private let lock = NSLock()
    private let connection: SQLiteConnection
    /// The NDJSON line being written, reused from line to line.
    private var line: [UInt8] = []
    /// The last pending count, with the cursor and the database's `data_version` it was counted at.
    private var counted: (dataVersion: Int64, cursor: Int64, pending: Int)?

    init(path: String, destination: String) throws(StoreError) {
        self.destination = destination
        self.path = path
        connection = try UploadDatabase.open(
            path: path, options: OutboxOptions(), create: false, checkingIntegrity: false)
    }

    /// The rowid of the newest event answered by a receipt (0 for none).
    private func cursor() throws(StoreError) -> Int64 {
        let select = try connection.prepare(UploadSQL.statement("select_push_cursor"))
        select.bind(1, destination)
        defer { select.reset() }
        return try select.step() ? select.int64(0) : 0
    }

    func nextBatch(after previous: UploadBatch?, maximumEvents: Int, maximumBytes: Int) throws(UploadError)
        -> UploadBatch?
    {
        lock.lock()
        defer { lock.unlock() }
        do throws(StoreError) {
            var batch = UploadBatch()
            var bytes = 0
            var full = false
            let after = max(try cursor(), previous?.keys.last ?? 0)
            let select = try connection.prepare(PushSource.selectSQL)
            select.bind(1, after)
            select.bind(2, Int64(maximumEvents))
            defer { select.reset() }
            while !full, try select.step() {
                try writeLine(select)
                let text = String(decoding: line, as: UTF8.self)
                full = !batch.append(
                    text, key: select.int64(PushSource.rowidColumn), bytes: &bytes, maximumBytes: maximumBytes)
            }
            return batch.count == 0 ? nil : batch
        } catch {
            throw UploadError(error)
        }
    }

    func finish(_ batch: UploadBatch, rejected: [DropReason: Int], unseen: Bool) throws(UploadError) {
        guard let last = batch.keys.last else { return }
        lock.lock()
        defer { lock.unlock() }
        do throws(StoreError) {
            try connection.immediateTransaction(doing: "moving the push cursor") { () throws(StoreError) in
                let now = UploadDatabase.nowMilliseconds
                let move = try connection.prepare(UploadSQL.statement("upsert_push_cursor"))
                move.bind(1, destination)
                move.bind(2, last)
                move.bind(3, now)
                try move.run()
                let count = try connection.prepare(UploadSQL.statement("upsert_push_loss"))
                for (reason, number) in rejected.sorted(by: { $0.key < $1.key }) where number > 0 {
                    count.bind(1, destination)
                    count.bind(2, reason.rawValue)
                    count.bind(3, Int64(number))
                    count.bind(4, now)
                    try count.run()
                }
            }
        } catch {
            throw UploadError(error)
        }
    }

    /// The events after the cursor. The uploader asks after every receipt: counting them all each time made a push
    /// quadratic in its events (a push of 200,000 spent most of its time there, in `pread`). While no other
    /// connection has committed (`PRAGMA data_version` unchanged), the events are those counted last time less the
    /// ones the cursor has passed since, which are counted instead; any other commit, an append or a delete,
    /// brings back a full count.
    func pendingCount() throws(UploadError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        do throws(StoreError) {
            let dataVersion = try connection.scalarInt("PRAGMA data_version")
            let cursor = try cursor()
            let pending: Int
            if let counted, counted.dataVersion == dataVersion, cursor >= counted.cursor {
                pending = counted.pending - (try count(after: counted.cursor, upTo: cursor))
            } else {
                pending = try count(after: cursor, upTo: .max)
            }
            counted = (dataVersion, cursor, pending)
            return pending
        } catch {
            throw UploadError(error)
        }
    }

    /// The number of events with `after < rowid <= upTo`.
    private func count(after: Int64, upTo: Int64) throws(StoreError) -> Int {
        guard upTo > after else { return 0 }
        let select = try connection.prepare(EmbeddedSQL.statement("count_events_between"))
        select.bind(1, after)
        select.bind(2, upTo)
        defer { select.reset() }
        return try select.step() ? Int(select.int64(0)) : 0
    }

    func endUploading() {}

    /// The rejected lines counted for `destination`, by reason.
    func losses() throws(StoreError) -> [DropReason: Int] {
        lock.lock()
        defer { lock.unlock() }
        let select = try connection.prepare(UploadSQL.statement("select_push_losses"))
        select.bind(1, destination)
        defer { select.reset() }
        var losses: [DropReason: Int] = [:]
        while try select.step() { losses[DropReason(rawValue: select.text(0) ?? "")] = Int(select.int64(1)) }
        return losses
    }
}

// MARK: Rows to NDJSON lines

extension PushSource {
    /// The events after rowid ?1, at most ?2, oldest first (EventStore's `Statements/select_events_for_push.sql`):
    /// the hex of a 16-byte id (NULL for any other id), the id as stored, `ts_ms`, `name`, the field columns in
    /// ``EventColumns/fields``' order, `extra`, `rowid`.
    static let selectSQL = EmbeddedSQL.statement("select_events_for_push")
    /// The first field column of ``selectSQL``; `extra` and `rowid` follow the field columns.
    static let firstFieldColumn: Int32 = 4
    static let extraColumn = firstFieldColumn + Int32(EventColumns.fields.count)
    static let rowidColumn = extraColumn + 1
    /// The field columns' positions in ``EventColumns/fields``, their names in byte order (as lines order keys).
    static let fieldsInByteOrder = EventColumns.fields.indices.sorted {
        precedesInBytes(EventColumns.fields[$0].field, EventColumns.fields[$1].field)
    }

    /// Writes the row at `select` into ``line``: the bytes `NDJSONCodec.line(for:)` gives for the event the store
    /// reads from that row, without making the event (a dictionary of its fields, hashed, then sorted), which was
    /// a third of a push's CPU.
    private func writeLine(_ select: SQLiteStatement) throws(StoreError) {
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: #"{"id":"#.utf8)
        if let (high, low) = PushSource.uuid(hex: select.text(0)) ?? EventID(select.text(1) ?? "").uuidValue {
            NDJSONCodec.appendUUID(high: high, low: low, to: &line)
        } else {
            JSONValue.writeString(select.text(1) ?? "", to: &line)
        }
        line.append(contentsOf: #","name":"#.utf8)
        JSONValue.writeString(select.text(3) ?? "", to: &line)
        line.append(contentsOf: #","ts":"#.utf8)
        line.append(contentsOf: String(select.int64(2)).utf8)
        line.append(contentsOf: #","fields":{"#.utf8)
        if select.isNull(PushSource.extraColumn) {
            var first = true
            for position in PushSource.fieldsInByteOrder {
                guard let value = fieldValue(select, position) else { continue }
                if !first { line.append(UInt8(ascii: ",")) }
                first = false
                writeMember(EventColumns.fields[position].field, value)
            }
        } else {
            var fields: [(key: String, value: String)] = []
            for position in EventColumns.fields.indices {
                if let value = fieldValue(select, position) {
                    fields.append((EventColumns.fields[position].field, value))
                }
            }
            try mergeExtra(select.text(PushSource.extraColumn) ?? "", into: &fields)
            fields.sort { PushSource.precedesInBytes($0.key, $1.key) }
            for (offset, field) in fields.enumerated() {
                if offset > 0 { line.append(UInt8(ascii: ",")) }
                writeMember(field.key, field.value)
            }
        }
        line.append(contentsOf: "}}".utf8)
    }

    /// The value of field column `position`, as the store reads it (`success` from its integer), or `nil` for NULL.
    private func fieldValue(_ select: SQLiteStatement, _ position: Int) -> String? {
        let column = PushSource.firstFieldColumn + Int32(position)
        if select.isNull(column) { return nil }
        if position == EventColumns.fieldPosition(ofBindIndex: EventColumns.successIndex) {
            return String(select.int64(column))
        }
        return select.text(column)
    }

    /// Adds the string members of `extra` (a JSON object) to `fields` as the store does, into a dictionary: a
    /// member replaces the value of a field whose name is equal to its key.
    private func mergeExtra(_ extra: String, into fields: inout [(key: String, value: String)]) throws(StoreError) {
        guard case .object(let object) = try? JSONValue.parse(extra) else {
            throw StoreError(
                .corrupt, path: path, "an event's extra fields in \(path) are not a JSON object: restore the file")
        }
        for member in object {
            guard let value = member.value.stringValue else { continue }
            if let index = fields.firstIndex(where: { $0.key == member.key }) {
                fields[index].value = value
            } else {
                fields.append((member.key, value))
            }
        }
    }

    private func writeMember(_ key: String, _ value: String) {
        JSONValue.writeString(key, to: &line)
        line.append(UInt8(ascii: ":"))
        JSONValue.writeString(value, to: &line)
    }

    /// The UUID whose 32 hex digits are `hex`.
    static func uuid(hex: String?) -> (high: UInt64, low: UInt64)? {
        guard var hex, hex.utf8.count == 32 else { return nil }
        return hex.withUTF8 { digits in
            var (high, low): (UInt64, UInt64) = (0, 0)
            for (index, digit) in digits.enumerated() {
                let value: UInt8
                switch digit {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = digit - UInt8(ascii: "A") + 10
                default: return nil
                }
                if index < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            }
            return (high, low)
        }
    }

    /// Whether `first`'s UTF-8 bytes sort before `second`'s.
    static func precedesInBytes(_ first: String, _ second: String) -> Bool {
        first.utf8.lexicographicallyPrecedes(second.utf8)
    }
}
