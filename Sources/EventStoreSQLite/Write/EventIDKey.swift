import CSQLite
import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// The 64-bit key under which the id index (Migrations/0011_index_event_ids_by_key.sql) files an event id.
///
/// An 8-byte integer key makes a far denser B-tree than the 16-byte (UUID) or longer (text) ids themselves.
/// Two ids may share a key: the index then holds both, and a lookup compares the full id stored in `events`,
/// so dedup stays exact. The key is stored: it must never change for an id (no per-process seed).
///
/// - A UUIDv7 keeps its first 48 bits (its millisecond time) and gets a 16-bit hash of the other 80 bits:
///   time-ordered ids get increasing, non-negative keys, so they land at the end of the index and
///   ``EventIDIndex`` knows a key above every stored one is new without looking it up. Two UUIDv7 share a
///   key only within one millisecond, about one pair in 650 at 100 ids a millisecond.
/// - Any other id (a UUIDv4, whose bits are random anyway, or text) gets a 63-bit hash with the sign bit
///   set: negative keys, below every UUIDv7 key, so that they never hide the UUIDv7s' order.
enum EventIDKey {
    /// The key of `id`.
    static func key(_ id: EventID) -> Int64 {
        if let (high, low) = id.uuidValue { return key(uuidHigh: high, low: low) }
        var text = id.description
        return text.withUTF8 { key(text: UnsafeRawBufferPointer($0)) }
    }

    /// The key of a UUID, from its big-endian halves.
    static func key(uuidHigh high: UInt64, low: UInt64) -> Int64 {
        let hash = mix(low ^ mix(high))
        guard high >> 12 & 0xF == 7 else { return hashed(hash) }
        return Int64(bitPattern: high & ~0xFFFF | hash >> 48)
    }

    /// A hashed key: negative, below every UUIDv7 key.
    private static func hashed(_ hash: UInt64) -> Int64 {
        Int64(bitPattern: hash | 1 << 63)
    }

    /// The key of a text id, from its UTF-8 bytes.
    static func key(text bytes: UnsafeRawBufferPointer) -> Int64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hashed(mix(hash))
    }

    /// The finaliser of SplitMix64: every input bit moves every output bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var bits = value
        bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits >> 31)
    }

    /// Registers `alstats_id_key(id)` on `connection`: the key of a stored id (a 16-byte blob is a UUID, any
    /// other value its text), for migration 0011, which indexes the events already stored.
    static func register(on connection: SQLiteConnection) throws(SQLiteError) {
        let status = register(onHandle: connection.handle)
        guard status == SQLITE_OK else {
            throw connection.error(status, doing: "registering the SQL function alstats_id_key")
        }
    }

    /// Registers `alstats_id_key(id)` on the database `handle`; SQLite's status.
    static func register(onHandle handle: OpaquePointer) -> Int32 {
        sqlite3_create_function_v2(
            handle, "alstats_id_key", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, count, arguments in
                guard count == 1, let value = arguments?[0] else { return }
                sqlite3_result_int64(context, EventIDKey.key(storedID: value))
            }, nil, nil, nil)
    }

    /// The key of an id as `EventColumns.bindID` stored it.
    private static func key(storedID value: OpaquePointer) -> Int64 {
        if sqlite3_value_type(value) == SQLITE_BLOB, sqlite3_value_bytes(value) == 16,
            let pointer = sqlite3_value_blob(value)
        {
            let bytes = UnsafeRawBufferPointer(start: pointer, count: 16)
            var high: UInt64 = 0
            var low: UInt64 = 0
            for byte in bytes[0..<8] { high = high << 8 | UInt64(byte) }
            for byte in bytes[8..<16] { low = low << 8 | UInt64(byte) }
            return key(uuidHigh: high, low: low)
        }
        let text = sqlite3_value_text(value)
        let count = text == nil ? 0 : Int(sqlite3_value_bytes(value))
        return key(text: UnsafeRawBufferPointer(start: text, count: count))
    }
}
