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
        _ event: MeasurementEvent, with statement: SQLiteStatement, packer: EventPacker?, scratch: inout RowScratch
    ) throws(SQLiteError) -> RollupKey {
        scratch.values.removeAll()
        let (key, success) = pack(
            event, into: &scratch.values, extra: &scratch.extra, packer: packer, scratch: &scratch.packed)
        try insertPacked(
            timestamp: event.timestamp, success: success, values: scratch.values, range: 0..<scratch.values.count,
            with: statement)
        return key
    }

    /// The buffers of the row a writer inserts, kept for their capacity from one row to the next.
    struct RowScratch {
        /// The row's text and blob values.
        var values = BoundValues()
        /// The fields without a column of their own, encoded into `extra`.
        var extra: [(String, String)] = []
        /// The buffers of the row's packing.
        var packed = PackedFields.Scratch()
    }

    /// Adds `event`'s id, name, text columns and `extra` to `values`, in the insert's bind indices, after the
    /// values already there (``PackedSlice`` and ``EncodedEvents`` pack many rows into one buffer); its time and
    /// `success` are bound by value when the row is inserted (``insertPacked(timestamp:success:values:range:with:)``).
    /// With a `packer`, the long fields (``PackedFields``) go into `packed` instead of their columns.
    /// - Returns: the event's rollup group and its integer `success`, if any.
    static func pack(
        _ event: MeasurementEvent, into values: inout BoundValues, extra: inout [(String, String)],
        packer: EventPacker?, scratch: inout PackedFields.Scratch
    ) -> (key: RollupKey, success: Int64?) {
        bindID(event.id, at: 1, to: &values)
        values.text(3, event.name)
        guard let packer else {
            let (key, success) = columns(of: event, extra: &extra) { index, value in values.text(index, value) }
            if !extra.isEmpty { values.text(extraIndex, encodeExtra(&extra)) }
            return (key, success)
        }
        var slots: (String?, String?, String?, String?, String?) = (nil, nil, nil, nil, nil)
        let (key, success) = columns(of: event, extra: &extra) { index, value in
            switch PackedFields.slot(ofBindIndex: index) {
            case 0: slots.0 = value
            case 1: slots.1 = value
            case 2: slots.2 = value
            case 3: slots.3 = value
            case 4: slots.4 = value
            default: values.text(index, value)
            }
        }
        scratch.payload.removeAll()
        if let value = slots.0 { scratch.payload.add(value, slot: 0) }
        if let value = slots.1 { scratch.payload.add(value, slot: 1) }
        if let value = slots.2 { scratch.payload.add(value, slot: 2) }
        if let value = slots.3 { scratch.payload.add(value, slot: 3) }
        if let value = slots.4 { scratch.payload.add(value, slot: 4) }
        let encodedExtra = extra.isEmpty ? nil : encodeExtra(&extra)
        if let encodedExtra { scratch.payload.add(encodedExtra, slot: 5) }
        if scratch.payload.bytes.count > EventPacker.maximumPayload || keepsUnpacked(event.name, extra: encodedExtra) {
            // Larger than a reader expands, or read by the report's install funnel: the row keeps its long fields
            // unpacked.
            for (slot, value) in [slots.0, slots.1, slots.2, slots.3, slots.4, encodedExtra].enumerated() {
                if let value { values.text(PackedFields.bindIndices[slot], value) }
            }
        } else if !scratch.payload.isEmpty {
            scratch.packed.removeAll(keepingCapacity: true)
            packer.pack(scratch.payload.bytes, to: &scratch.packed)
            scratch.packed.withUnsafeBytes { values.blob(PackedFields.packedIndex, $0) }
        }
        return (key, success)
    }

    /// Whether an event of `name` whose extra fields are `extra` stays unpacked in a packed database: the install
    /// path's events (store taps, installs, first opens) and the `al_nav_in` of deferred opens, whose fields the
    /// report reads from `extra` through the partial indexes of Migrations/0019_create_click_tokens.sql.
    /// Statements/pack_unpacked_events.sql keeps them unpacked by the same rule, and a prune keeps them by it
    /// (Statements/collect_pruned_events.sql).
    static func keepsUnpacked(_ name: String, extra: String?) -> Bool {
        guard let extra else { return false }
        switch name {
        case EventName.linkStore, EventName.linkInstall, EventName.firstOpen: return true
        case EventName.navIn: return extra.containsBytes(#""deferred":"1""#)
        default: return false
        }
    }

    /// Inserts a row packed by ``pack(_:into:extra:)``: binds its time and `success` by value and its packed
    /// values at `range` of `values` in place, then steps.
    @inline(__always)
    static func insertPacked(
        timestamp: Int64, success: Int64?, values: BoundValues, range: Range<Int>, with statement: SQLiteStatement
    ) throws(SQLiteError) {
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
    static func readEvent(_ statement: SQLiteStatement) throws(SQLiteError) -> MeasurementEvent {
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
        var extraText = statement.text(extraColumn)
        if let packed = try unpacked(statement, column: extraColumn + 1) {
            for (slot, value) in packed.enumerated() {
                guard let value else { continue }
                if slot < 5 {
                    fields[EventColumns.fields[fieldPosition(ofBindIndex: PackedFields.bindIndices[slot])].field] =
                        value
                } else {
                    extraText = value
                }
            }
        }
        if let extra = extraText {
            guard case .object(let object) = try? JSONValue.parse(extra) else {
                throw SQLiteError(
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

    /// The long fields of a packed row, by ``PackedFields`` slot, from the payload at `column` (an
    /// `alstats_unpack(packed)` column), or `nil` when the row is not packed.
    static func unpacked(_ statement: SQLiteStatement, column: Int32) throws(SQLiteError) -> [String?]? {
        if statement.isNull(column) { return nil }
        guard let values = PackedFields.unpackArray(statement.blob(column)) else {
            throw SQLiteError(
                .corrupt, path: statement.connection.path,
                "an event's packed fields in \(statement.connection.path) are damaged: restore the file")
        }
        return values
    }
}
