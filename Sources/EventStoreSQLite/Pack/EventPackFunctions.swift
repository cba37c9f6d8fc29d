import CSQLite
import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// The SQL functions of packed fields, registered on every connection the store opens (Migrations/0016 and
/// Statements/pack_stored_events.sql):
///
/// - `alstats_field(packed, column)`: the text a packed row keeps for `column` (`input_url`, `target_url`,
///   `referer_url`, `output_url`, `source_url` or `extra`), or NULL; the view `event_fields` reads with it.
/// - `alstats_unpack(packed)`: the payload of a packed value (``PackedFields``), which the store's readers parse.
/// - `alstats_pack_payload(input_url, target_url, referer_url, output_url, source_url, extra)`: the payload of
///   those columns, NULL when all are NULL.
/// - `alstats_pack(payload, dictionary)`: the payload packed with dictionary `dictionary` of
///   `event_pack_dictionaries`.
/// - `alstats_pack_train(payload)`, an aggregate: a dictionary trained on the payloads, NULL when too few.
/// - `alstats_pack_dictionary_id(dictionary)`: the id a dictionary is stored under, a hash of its bytes.
///
/// Each connection keeps the dictionaries it has read, by id. An id is a hash of the dictionary's bytes, so a
/// dictionary kept after the transaction that stored it rolled back is still the one any row naming its id was
/// packed with.
final class EventPackFunctions {
    private let handle: OpaquePointer
    private var packers: [Int64: EventPacker] = [:]

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    /// Registers the functions on `connection`.
    static func register(on connection: SQLiteConnection) throws(SQLiteError) {
        if let (name, status) = register(onHandle: connection.handle) {
            throw connection.error(status, doing: "registering the SQL function \(name)")
        }
    }

    /// Registers the functions on the database `handle`; the name and SQLite's status of the first that failed, or
    /// `nil`.
    static func register(onHandle handle: OpaquePointer) -> (name: String, status: Int32)? {
        let functions = Unmanaged.passRetained(EventPackFunctions(handle: handle))
        let context = functions.toOpaque()
        // The first registration owns the context and releases it when the connection closes.
        let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
            if let pointer { Unmanaged<EventPackFunctions>.fromOpaque(pointer).release() }
        }
        let registrations: [(String, Int32, Bool)] = [
            ("alstats_field", 2, true), ("alstats_unpack", 1, true), ("alstats_pack_payload", 6, true),
            ("alstats_pack", 2, false), ("alstats_pack_dictionary_id", 1, true),
        ]
        for (offset, (name, count, deterministic)) in registrations.enumerated() {
            let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
            let status = sqlite3_create_function_v2(
                handle, name, count, flags, context, scalar(named: name), nil, nil, offset == 0 ? release : nil)
            // SQLite has called the release already when the first registration failed.
            guard status == SQLITE_OK else { return (name, status) }
        }
        let status = sqlite3_create_function_v2(
            handle, "alstats_pack_train", 1, SQLITE_UTF8, nil, nil, trainStep, trainFinal, nil)
        return status == SQLITE_OK ? nil : ("alstats_pack_train", status)
    }

    private typealias Scalar = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    private static func scalar(named name: String) -> Scalar {
        switch name {
        case "alstats_field":
            return { context, _, arguments in
                guard let context, let arguments, let packed = arguments[0], let column = arguments[1] else { return }
                guard sqlite3_value_type(packed) != SQLITE_NULL else { return sqlite3_result_null(context) }
                guard let text = sqlite3_value_text(column),
                    let slot = PackedFields.slot(ofColumn: String(cString: text))
                else {
                    return sqlite3_result_error(
                        context,
                        "alstats_field: the column must be input_url, target_url, referer_url, output_url, source_url or extra",
                        -1)
                }
                // payload(of:context:) has set the error when it gives nothing.
                guard let payload = EventPackFunctions.functions(context).payload(of: packed, context: context) else {
                    return
                }
                guard let values = PackedFields.unpackArray(payload) else {
                    return sqlite3_result_error(context, "a packed event field is damaged: restore the file", -1)
                }
                guard let value = values[slot] else { return sqlite3_result_null(context) }
                csqlite_result_text(context, value, Int32(value.utf8.count))
            }
        case "alstats_unpack":
            return { context, _, arguments in
                guard let context, let arguments, let packed = arguments[0] else { return }
                guard sqlite3_value_type(packed) != SQLITE_NULL else { return sqlite3_result_null(context) }
                guard let payload = EventPackFunctions.functions(context).payload(of: packed, context: context) else {
                    return
                }
                payload.withUnsafeBytes { bytes in
                    csqlite_result_blob(context, bytes.baseAddress, Int32(bytes.count))
                }
            }
        case "alstats_pack_payload":
            return { context, _, arguments in
                guard let context, let arguments else { return }
                var builder = PackedFields.Builder()
                for slot in 0..<PackedFields.columns.count {
                    guard let value = arguments[slot], sqlite3_value_type(value) != SQLITE_NULL,
                        let text = sqlite3_value_text(value)
                    else { continue }
                    // By its length: a text may hold NUL bytes.
                    let bytes = UnsafeRawBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
                    builder.add(String(decoding: bytes, as: UTF8.self), slot: slot)
                }
                guard !builder.isEmpty else { return sqlite3_result_null(context) }
                builder.bytes.withUnsafeBytes { bytes in
                    csqlite_result_blob(context, bytes.baseAddress, Int32(bytes.count))
                }
            }
        case "alstats_pack_dictionary_id":
            return { context, _, arguments in
                guard let context, let arguments, let dictionary = arguments[0] else { return }
                sqlite3_result_int64(context, EventPacker.id(of: EventPackFunctions.bytes(of: dictionary)))
            }
        default:  // alstats_pack
            return { context, _, arguments in
                guard let context, let arguments, let payload = arguments[0], let id = arguments[1] else { return }
                guard sqlite3_value_type(payload) == SQLITE_BLOB else { return sqlite3_result_null(context) }
                guard let packer = EventPackFunctions.functions(context).packer(sqlite3_value_int64(id)) else {
                    return sqlite3_result_error(
                        context, "alstats_pack: no such dictionary in event_pack_dictionaries", -1)
                }
                var packed: [UInt8] = []
                packer.pack(EventPackFunctions.bytes(of: payload), to: &packed)
                packed.withUnsafeBytes { bytes in
                    csqlite_result_blob(context, bytes.baseAddress, Int32(bytes.count))
                }
            }
        }
    }

    private static func functions(_ context: OpaquePointer) -> EventPackFunctions {
        Unmanaged<EventPackFunctions>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
    }

    private static func bytes(of value: OpaquePointer) -> [UInt8] {
        let count = Int(sqlite3_value_bytes(value))
        guard count > 0, let pointer = sqlite3_value_blob(value) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The payload of a packed value, or `nil` with an error set on `context`.
    private func payload(of packed: OpaquePointer, context: OpaquePointer) -> [UInt8]? {
        let value = Self.bytes(of: packed)
        return value.withUnsafeBytes { bytes -> [UInt8]? in
            guard let (id, frame) = EventPacker.header(of: bytes) else {
                sqlite3_result_error(context, "a packed event field is damaged: restore the file", -1)
                return nil
            }
            guard let packer = packer(id) else {
                let reason =
                    EventPacker.isAvailable
                    ? "a packed event field names a dictionary that event_pack_dictionaries does not hold"
                    : "this build of alstats has no Zstandard and cannot read packed event fields"
                sqlite3_result_error(context, reason, -1)
                return nil
            }
            guard let payload = packer.expand(frame: frame) else {
                sqlite3_result_error(context, "a packed event field is damaged: restore the file", -1)
                return nil
            }
            return payload
        }
    }

    /// Dictionary `id`, read from `event_pack_dictionaries` the first time.
    private func packer(_ id: Int64) -> EventPacker? {
        if let packer = packers[id] { return packer }
        guard let dictionary = Self.dictionary(id, handle: handle),
            let packer = EventPacker(id: id, dictionary: dictionary)
        else { return nil }
        packers[id] = packer
        return packer
    }

    /// The bytes of dictionary `id`, or `nil` when there is none.
    static func dictionary(_ id: Int64, handle: OpaquePointer) -> [UInt8]? {
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(
                handle, "SELECT dictionary FROM event_pack_dictionaries WHERE id = ?1", -1, &statement, nil)
                == SQLITE_OK, let statement
        else { return nil }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, id)
        guard sqlite3_step(statement) == SQLITE_ROW, let column = sqlite3_column_value(statement, 0) else { return nil }
        return bytes(of: column)
    }

    /// The payloads an `alstats_pack_train` aggregate has seen.
    private final class Samples {
        var payloads: [[UInt8]] = []
    }

    private static let trainStep: Scalar = { context, _, arguments in
        guard let context, let arguments, let payload = arguments[0], sqlite3_value_type(payload) == SQLITE_BLOB,
            let slot = sqlite3_aggregate_context(context, Int32(MemoryLayout<UnsafeMutableRawPointer?>.size))
        else { return }
        let pointer = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        if pointer.pointee == nil { pointer.pointee = Unmanaged.passRetained(Samples()).toOpaque() }
        Unmanaged<Samples>.fromOpaque(pointer.pointee!).takeUnretainedValue().payloads.append(
            EventPackFunctions.bytes(of: payload))
    }

    private static let trainFinal: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let context else { return }
        guard let slot = sqlite3_aggregate_context(context, 0),
            let stored = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee
        else { return sqlite3_result_null(context) }
        let samples = Unmanaged<Samples>.fromOpaque(stored).takeRetainedValue()
        guard let dictionary = EventPacker.train(samples.payloads) else { return sqlite3_result_null(context) }
        dictionary.withUnsafeBytes { bytes in
            csqlite_result_blob(context, bytes.baseAddress, Int32(bytes.count))
        }
    }
}

extension PackedFields {
    /// ``unpack(_:)`` of an array.
    static func unpackArray(_ payload: [UInt8]) -> [String?]? {
        payload.withUnsafeBytes { unpack($0) }
    }
}
