import CSQLite
import MeasurementEvents

/// How an event maps to a row of `events` (Migrations/0001_create_events.sql) and back.
///
/// The catalogue fields have real columns; `success` is stored as the integer 1 or 0 when it is "1" or
/// "0"; every other field, and any other value of `success`, goes into `extra` as a JSON object of
/// strings with sorted keys. A UUID id is stored as 16 bytes, any other id as text.
enum EventColumns {
    /// The field columns, in statement order after `id`, `ts_ms`, `name`.
    static let fields: [(field: String, column: String)] = [
        (FieldName.ref, "ref"),
        (FieldName.success, "success"),
        (FieldName.type, "type"),
        (FieldName.refererAppName, "referer_app_name"),
        (FieldName.sourceURLHost, "source_url_host"),
        (FieldName.error, "error"),
        (FieldName.inputURL, "input_url"),
        (FieldName.inputURLScheme, "input_url_scheme"),
        (FieldName.targetURL, "target_url"),
        (FieldName.refererURL, "referer_url"),
        (FieldName.sourceApplication, "source_application"),
        (FieldName.outputURL, "output_url"),
        (FieldName.outputURLScheme, "output_url_scheme"),
        (FieldName.sourceURL, "source_url"),
        (FieldName.version, "version"),
    ]

    /// The bind index (1-based) of each field column.
    static let bindIndex: [String: Int32] = {
        var index: [String: Int32] = [:]
        for (offset, entry) in fields.enumerated() { index[entry.field] = Int32(offset + 4) }
        return index
    }()

    /// The bind index of `success`.
    static let successIndex: Int32 = bindIndex[FieldName.success]!
    /// The bind index of `extra`.
    static let extraIndex = Int32(fields.count + 4)

    static let columnList = "id, ts_ms, name, " + fields.map(\.column).joined(separator: ", ") + ", extra"

    /// Inserts one event; a duplicate id changes nothing (check `changes`).
    static let insertSQL =
        "INSERT INTO events (\(columnList)) VALUES ("
        + (1...(fields.count + 4)).map { "?\($0)" }.joined(separator: ", ") + ") ON CONFLICT (id) DO NOTHING"

    /// Reads events in time order within [?1, ?2).
    static let selectSQL =
        "SELECT \(columnList) FROM events WHERE ts_ms >= ?1 AND ts_ms < ?2 ORDER BY ts_ms, id"

    /// Binds `event` (already redacted) to an insert statement.
    static func bind(_ event: MeasurementEvent, to statement: SQLiteStatement, extra: inout [(String, String)]) {
        statement.clearBindings()
        bindID(event.id, at: 1, to: statement)
        statement.bind(2, event.timestamp)
        statement.bind(3, event.name)
        extra.removeAll(keepingCapacity: true)
        for (key, value) in event.fields {
            guard let index = bindIndex[key] else {
                extra.append((key, value))
                continue
            }
            if index == successIndex {
                switch value {
                case "1": statement.bind(index, Int64(1))
                case "0": statement.bind(index, Int64(0))
                default: extra.append((key, value))
                }
            } else {
                statement.bind(index, value)
            }
        }
        if !extra.isEmpty {
            statement.bind(extraIndex, encodeExtra(&extra))
        }
    }

    /// Binds an id: 16 bytes for a UUID, text otherwise.
    static func bindID(_ id: EventID, at index: Int32, to statement: SQLiteStatement) {
        if let (high, low) = id.uuidValue {
            var bytes = (high.bigEndian, low.bigEndian)
            withUnsafeBytes(of: &bytes) { statement.bind(index, blob: $0) }
        } else {
            statement.bind(index, id.description)
        }
    }

    /// Reads an id bound by ``bindID(_:at:to:)``.
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

    /// Reads a row selected with ``columnList``.
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

    /// The extra fields as a JSON object with keys in byte order.
    static func encodeExtra(_ extra: inout [(String, String)]) -> String {
        extra.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        var text = "{"
        for (offset, (key, value)) in extra.enumerated() {
            if offset > 0 { text += "," }
            JSONValue.writeString(key, to: &text)
            text += ":"
            JSONValue.writeString(value, to: &text)
        }
        text += "}"
        return text
    }
}
