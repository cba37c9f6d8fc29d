import CSQLite
import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

extension EventColumns {
    /// Inserts one event, whose id ``EventIDIndex`` found new. Statements/insert_event.sql.
    static let insertSQL = EmbeddedSQL.statement("insert_event")

    /// Reads events in time order within [?1, ?2), columns in insert order. Statements/select_events.sql.
    static let selectSQL = EmbeddedSQL.statement("select_events")

    /// Inserts `event` (already redacted) with an insert statement, its values bound in place from `values`.
    /// - Returns: the event's rollup group, read from the same pass over its fields.
    static func insert(
        _ event: MeasurementEvent, with statement: SQLiteStatement, values: inout BoundValues,
        extra: inout [(String, String)]
    ) throws(StoreError) -> RollupKey {
        values.removeAll()
        let (key, success) = pack(event, into: &values, extra: &extra)
        try insertPacked(
            timestamp: event.timestamp, success: success, values: values, range: 0..<values.count, with: statement)
        return key
    }

    /// Adds `event`'s id, name, text columns and `extra` to `values`, in the insert's bind indices, after the
    /// values already there (``PackedSlice`` and ``EncodedEvents`` pack many rows into one buffer); its time and
    /// `success` are bound by value when the row is inserted (``insertPacked(timestamp:success:values:range:with:)``).
    /// - Returns: the event's rollup group and its integer `success`, if any.
    static func pack(
        _ event: MeasurementEvent, into values: inout BoundValues, extra: inout [(String, String)]
    ) -> (key: RollupKey, success: Int64?) {
        bindID(event.id, at: 1, to: &values)
        values.text(3, event.name)
        let (key, success) = columns(of: event, extra: &extra) { index, value in values.text(index, value) }
        if !extra.isEmpty { values.text(extraIndex, encodeExtra(&extra)) }
        return (key, success)
    }

    /// Inserts a row packed by ``pack(_:into:extra:)``: binds its time and `success` by value and its packed
    /// values at `range` of `values` in place, then steps.
    @inline(__always)
    static func insertPacked(
        timestamp: Int64, success: Int64?, values: BoundValues, range: Range<Int>, with statement: SQLiteStatement
    ) throws(StoreError) {
        statement.bind(2, timestamp)
        if let success { statement.bind(successIndex, success) }
        try values.run(statement, values: range)
    }

    /// Binds an id: 16 bytes for a UUID, text otherwise (``storedID(_:blob:text:)``).
    static func bindID(_ id: EventID, at index: Int32, to statement: SQLiteStatement) {
        storedID(id, blob: { statement.bind(index, blob: $0) }, text: { statement.bind(index, $0) })
    }

    /// Adds an id to a row's values, as ``bindID(_:at:to:)-(_,_,SQLiteStatement)`` binds it.
    static func bindID(_ id: EventID, at index: Int32, to values: inout BoundValues) {
        storedID(id, blob: { values.blob(index, $0) }, text: { values.text(index, $0) })
    }

    /// Reads an id bound by ``bindID(_:at:to:)-(_,_,SQLiteStatement)``.
    static func readID(_ statement: SQLiteStatement, column: Int32) -> EventID {
        if statement.type(column) == SQLITE_BLOB {
            let bytes = statement.blob(column)
            if bytes.count == 16 {
                var high: UInt64 = 0
                var low: UInt64 = 0
                for byte in bytes[0..<8] { high = high << 8 | UInt64(byte) }
                for byte in bytes[8..<16] { low = low << 8 | UInt64(byte) }
                return EventID(uuidHigh: high, low: low)
            }
        }
        return EventID(statement.text(column) ?? "")
    }

    /// Reads a row selected by Statements/select_events.sql.
    static func readEvent(_ statement: SQLiteStatement) throws(StoreError) -> MeasurementEvent {
        var fields: [String: String] = [:]
        for (offset, entry) in EventColumns.fields.enumerated() {
            let column = Int32(offset + 3)
            if statement.isNull(column) { continue }
            if entry.field == FieldName.success {
                fields[entry.field] = String(statement.int64(column))
            } else {
                fields[entry.field] = statement.text(column)
            }
        }
        let extraColumn = Int32(EventColumns.fields.count + 3)
        if let extra = statement.text(extraColumn) {
            guard case .object(let object) = try? JSONValue.parse(extra) else {
                throw StoreError(
                    .corrupt, path: statement.connection.path,
                    "an event's extra fields in \(statement.connection.path) are not a JSON object: restore the file")
            }
            for member in object {
                if let value = member.value.stringValue { fields[member.key] = value }
            }
        }
        return MeasurementEvent(
            id: readID(statement, column: 0), name: statement.text(2) ?? "", fields: fields,
            timestamp: statement.int64(1))
    }
}
