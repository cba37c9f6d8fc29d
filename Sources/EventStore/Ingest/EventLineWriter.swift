import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// Writes the NDJSON line of a row of `select_events_for_push` into a buffer reused from line to line.
struct EventLineWriter {
    /// The events after rowid ?1, at most ?2, oldest first: the hex of a 16-byte id (NULL for any other id), the
    /// id as stored, `ts_ms`, `name`, the field columns in ``EventColumns/fields``' order, `extra`, `rowid`.
    static let selectSQL = EmbeddedSQL.statement("select_events_for_push")
    /// The first field column of ``selectSQL``; `extra` and `rowid` follow the field columns.
    static let firstFieldColumn: Int32 = 4
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

    /// The database, for the message of a damaged row.
    let path: String
    /// The line of the last row written.
    private(set) var line: [UInt8] = []

    init(path: String) {
        self.path = path
    }

    /// Writes the row at `select` into ``line``.
    mutating func write(_ select: SQLiteStatement) throws(StoreError) {
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: #"{"id":"#.utf8)
        if let (high, low) = Self.uuid(hex: select.text(0)) ?? EventID(select.text(1) ?? "").uuidValue {
            NDJSONCodec.appendUUID(high: high, low: low, to: &line)
        } else {
            JSONValue.writeString(select.text(1) ?? "", to: &line)
        }
        line.append(contentsOf: #","name":"#.utf8)
        JSONValue.writeString(select.text(3) ?? "", to: &line)
        line.append(contentsOf: #","ts":"#.utf8)
        line.append(contentsOf: String(select.int64(2)).utf8)
        line.append(contentsOf: #","fields":{"#.utf8)
        let packed = try EventColumns.unpacked(select, column: Self.packedColumn)
        let extra = packed?[5] ?? select.text(Self.extraColumn)
        if extra == nil {
            var first = true
            for position in Self.fieldsInByteOrder {
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

    private mutating func writeMember(_ key: String, _ value: String) {
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
