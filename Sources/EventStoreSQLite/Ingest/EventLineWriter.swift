import CSQLite
import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// Writes the NDJSON line of a row of `select_events_for_push` into a buffer reused from line to line.
struct EventLineWriter {
    /// The events after rowid ?1, at most ?2, oldest first: the id as stored, `ts_ms`, `name`, the field columns in
    /// ``EventColumns/fields``' order, `extra`, `rowid`.
    static let selectSQL = EmbeddedSQL.statement("select_events_for_push")
    /// The first field column of ``selectSQL``; `extra` and `rowid` follow the field columns.
    static let firstFieldColumn: Int32 = 3
    static let extraColumn = firstFieldColumn + Int32(EventColumns.fields.count)
    static let rowidColumn = extraColumn + 1
    /// The payload of a packed row's long fields (``PackedFields``), NULL for a row that is not packed.
    static let packedColumn = rowidColumn + 1
    /// The ``PackedFields`` slot of each field column, by position in ``EventColumns/fields``.
    static let packedSlots = EventColumns.fields.indices.map { position in
        PackedFields.bindIndices.firstIndex { EventColumns.fieldPosition(ofBindIndex: $0) == position }
    }
    /// The field columns' positions in ``EventColumns/fields``, their names in byte order (as lines order keys).
    static let fieldsInByteOrder = EventColumns.fields.indices.sorted {
        precedesInBytes(EventColumns.fields[$0].field, EventColumns.fields[$1].field)
    }

    /// The position of `success` in ``EventColumns/fields``: stored as an integer, written as its digits.
    static let successPosition = EventColumns.fieldPosition(ofBindIndex: EventColumns.successIndex)
    /// Each field column's name as a JSON string and a colon, by position in ``EventColumns/fields``.
    static let memberPrefixes = EventColumns.fields.map { field in
        var bytes: [UInt8] = []
        JSONValue.writeString(field.field, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        return bytes
    }

    /// The database, for the message of a damaged row.
    let path: String
    /// The line of the last row written.
    private(set) var line: [UInt8] = []

    init(path: String) {
        self.path = path
    }

    /// Writes the row at `select` into ``line``.
    mutating func write(_ select: SQLiteStatement) throws(SQLiteError) {
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: #"{"id":"#.utf8)
        if let (high, low) = Self.uuid(blob: select, column: 0) ?? EventID(select.text(0) ?? "").uuidValue {
            NDJSONCodec.appendUUID(high: high, low: low, to: &line)
        } else {
            JSONValue.writeString(select.text(0) ?? "", to: &line)
        }
        line.append(contentsOf: #","name":"#.utf8)
        if !writeText(select, 2) { JSONValue.writeString("", to: &line) }
        line.append(contentsOf: #","ts":"#.utf8)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            let count = select.int64(1).writeDecimal(to: digits.baseAddress!)
            line.append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<count]))
        }
        line.append(contentsOf: #","fields":{"#.utf8)
        let packed = try EventColumns.unpacked(select, column: Self.packedColumn)
        let extra = packed?[5] ?? select.text(Self.extraColumn)
        if extra == nil {
            var first = true
            for position in Self.fieldsInByteOrder {
                if packed == nil, position != Self.successPosition {
                    // A text column, written from SQLite's bytes.
                    let column = Self.firstFieldColumn + Int32(position)
                    if select.isNull(column) { continue }
                    if !first { line.append(UInt8(ascii: ",")) }
                    first = false
                    line.append(contentsOf: Self.memberPrefixes[position])
                    _ = writeText(select, column)
                    continue
                }
                guard let value = Self.fieldValue(select, position, packed: packed) else { continue }
                if !first { line.append(UInt8(ascii: ",")) }
                first = false
                writeMember(EventColumns.fields[position].field, value)
            }
        } else {
            var fields: [(key: String, value: String)] = []
            for position in EventColumns.fields.indices {
                if let value = Self.fieldValue(select, position, packed: packed) {
                    fields.append((EventColumns.fields[position].field, value))
                }
            }
            try mergeExtra(extra ?? "", into: &fields)
            fields.sort { Self.precedesInBytes($0.key, $1.key) }
            for (offset, field) in fields.enumerated() {
                if offset > 0 { line.append(UInt8(ascii: ",")) }
                writeMember(field.key, field.value)
            }
        }
        line.append(contentsOf: "}}".utf8)
    }

    /// The value of field column `position`, as the store reads it (`success` from its integer; a long field of a
    /// packed row from `packed`), or `nil` for NULL.
    private static func fieldValue(_ select: SQLiteStatement, _ position: Int, packed: [String?]?) -> String? {
        if let packed, let slot = packedSlots[position] { return packed[slot] }
        let column = firstFieldColumn + Int32(position)
        if select.isNull(column) { return nil }
        if position == EventColumns.fieldPosition(ofBindIndex: EventColumns.successIndex) {
            return String(select.int64(column))
        }
        return select.text(column)
    }

    /// Adds the string members of `extra` (a JSON object) to `fields` as the store does, into a dictionary: a
    /// member replaces the value of a field whose name is equal to its key.
    private func mergeExtra(_ extra: String, into fields: inout [(key: String, value: String)]) throws(SQLiteError) {
        guard case .object(let object) = try? JSONValue.parse(extra) else {
            throw SQLiteError(
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

    private mutating func writeMember(_ key: String, _ value: String) {
        JSONValue.writeString(key, to: &line)
        line.append(UInt8(ascii: ":"))
        JSONValue.writeString(value, to: &line)
    }

    /// Writes the text of `column` as a JSON string, straight from SQLite's bytes when they are ASCII with nothing
    /// to escape (nearly every value: a `String` of each column cost a push about 0.3 µs an event), else through
    /// a `String`, which replaces any invalid UTF-8 as before.
    /// - Returns: `false`, writing nothing, when the column is NULL.
    private mutating func writeText(_ select: SQLiteStatement, _ column: Int32) -> Bool {
        guard let text = sqlite3_column_text(select.handle, column) else { return false }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(select.handle, column)))
        var highBits: UInt8 = 0
        if bytes.firstJSONSpecial(from: 0, highBits: &highBits) == bytes.count, highBits & 0x80 == 0 {
            line.append(UInt8(ascii: "\""))
            line.append(contentsOf: bytes)
            line.append(UInt8(ascii: "\""))
        } else {
            JSONValue.writeString(String(decoding: bytes, as: UTF8.self), to: &line)
        }
        return true
    }

    /// The UUID of a 16-byte blob `column` (the store's UUIDs), or `nil` for any other value.
    static func uuid(blob select: SQLiteStatement, column: Int32) -> (high: UInt64, low: UInt64)? {
        guard sqlite3_column_type(select.handle, column) == SQLITE_BLOB,
            let blob = sqlite3_column_blob(select.handle, column),
            sqlite3_column_bytes(select.handle, column) == 16
        else { return nil }
        let bytes = UnsafeRawBufferPointer(start: blob, count: 16)
        return (
            UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
            UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        )
    }

    /// Whether `first`'s UTF-8 bytes sort before `second`'s.
    static func precedesInBytes(_ first: String, _ second: String) -> Bool {
        first.precedesBytes(of: second)
    }
}
