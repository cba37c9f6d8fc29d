import MeasurementEvents

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How an event maps to a row of `events` (Migrations/0001_create_events.sql) and back.
///
/// The catalogue fields have real columns; `success` is stored as the integer 1 or 0 when it is "1" or
/// "0"; every other field, and any other value of `success`, goes into `extra` as a JSON object of
/// strings with sorted keys. A UUID id is stored as 16 bytes, any other id as text.
package enum EventColumns {
    /// The field columns, in statement order after `id`, `ts_ms`, `name`.
    package static let fields: [(field: String, column: String)] = [
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

    /// The bind index (1-based) of a field's column, or `nil` for a field kept in `extra`.
    @inline(__always)
    package static func bindIndex(of key: String) -> Int32? {
        if let index = key.utf8.withContiguousStorageIfAvailable({ bindIndex(ofKey: $0) }) { return index }
        return Array(key.utf8).withUnsafeBufferPointer { bindIndex(ofKey: $0) }
    }

    /// ``bindIndex(of:)`` of a key's UTF-8 bytes (a line read in place, ``FlatLine``).
    ///
    /// A switch on length, then a comparison of bytes: cheaper than hashing every key of every event.
    @inline(__always)
    package static func bindIndex(ofKey key: UnsafeBufferPointer<UInt8>) -> Int32? {
        func equals(_ name: StaticString) -> Bool {
            name.utf8CodeUnitCount == key.count && memcmp(name.utf8Start, key.baseAddress!, key.count) == 0
        }
        switch key.count {
        case 3: return equals("ref") ? 4 : nil
        case 4: return equals("type") ? 6 : nil
        case 5: return equals("error") ? 9 : nil
        case 7:
            if equals("success") { return 5 }
            return equals("version") ? 18 : nil
        case 8: return equals("inputURL") ? 10 : nil
        case 9:
            if equals("targetURL") { return 12 }
            if equals("outputURL") { return 15 }
            return equals("sourceURL") ? 17 : nil
        case 10: return equals("refererURL") ? 13 : nil
        case 13: return equals("sourceURLHost") ? 8 : nil
        case 14:
            if equals("refererAppName") { return 7 }
            return equals("inputURLScheme") ? 11 : nil
        case 15: return equals("outputURLScheme") ? 16 : nil
        case 17: return equals("sourceApplication") ? 14 : nil
        default: return nil
        }
    }

    /// The bind index of `success`.
    package static let successIndex: Int32 = 5
    /// The position in ``fields`` of the column bound at `index` (the fields' columns follow `id`, `ts_ms` and
    /// `name`).
    package static func fieldPosition(ofBindIndex index: Int32) -> Int { Int(index) - 4 }
    /// The position among the field columns of `name`'s column; `name` must be a field with a column of its own.
    package static func fieldPosition(of name: String) -> Int {
        guard let bindIndex = bindIndex(of: name) else {
            preconditionFailure("\(name) is a field with a column of its own")
        }
        return fieldPosition(ofBindIndex: bindIndex)
    }

    /// The bind index of `extra`.
    package static let extraIndex = Int32(fields.count + 4)

    /// One pass over `event`'s fields: `column` gets each field that has a text column (with its bind index),
    /// `extra` the others; `success` "1" or "0" is returned as an integer instead.
    /// - Returns: the event's rollup group and its integer `success`, if any.
    @inline(__always)
    package static func columns(
        of event: MeasurementEvent, extra: inout [(String, String)], column: (Int32, String) -> Void
    ) -> (key: RollupKey, success: Int64?) {
        extra.removeAll(keepingCapacity: true)
        var success: Int64?
        var ref: String?
        var type: String?
        var refererAppName: String?
        var sourceURLHost: String?
        var error: String?
        for (field, value) in event.fields {
            guard let index = bindIndex(of: field) else {
                extra.append((field, value))
                continue
            }
            switch index {
            case successIndex:
                switch value {
                case "1": success = 1
                case "0": success = 0
                default: extra.append((field, value))
                }
                continue
            case 4: ref = value
            case 6: type = value
            case 7: refererAppName = value
            case 8: sourceURLHost = value
            case 9: error = value
            default: break
            }
            column(index, value)
        }
        let key = RollupKey(
            timestamp: event.timestamp, name: event.name, ref: ref, refererAppName: refererAppName, type: type,
            success: success, sourceURLHost: sourceURLHost, error: error)
        return (key, success)
    }

    /// How an id is stored: `blob` gets the 16 bytes (big-endian) of a UUID, `text` any other id's text.
    @inline(__always)
    package static func storedID(_ id: EventID, blob: (UnsafeRawBufferPointer) -> Void, text: (String) -> Void) {
        if let (high, low) = id.uuidValue {
            var bytes = (high.bigEndian, low.bigEndian)
            withUnsafeBytes(of: &bytes, blob)
        } else {
            text(id.description)
        }
    }

    /// The extra fields as a JSON object with keys in byte order.
    ///
    /// Written as bytes into room reserved for the whole object, then made a string once: appended to a `String`
    /// piece by piece, a wide event's extras (about 400 bytes) grew it five times and took about 2% of a packed
    /// ingest's CPU in `String` appends.
    package static func encodeExtra(_ extra: inout [(String, String)]) -> String {
        sortByKey(&extra)
        var bytes: [UInt8] = []
        // Quotes, colon and comma: six bytes a member besides its text (escapes may add more).
        bytes.reserveCapacity(extra.reduce(2) { $0 + $1.0.utf8.count + $1.1.utf8.count + 6 })
        bytes.append(UInt8(ascii: "{"))
        for (offset, (key, value)) in extra.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.writeString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONValue.writeString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sorts `extra` by the keys' bytes (distinct, as a dictionary's): an insertion sort, as an event has a few,
    /// comparing first the keys' leading eight bytes as one big-endian integer, which orders them as their bytes do
    /// unless equal. With `String` comparisons alone the sort was half the cost of encoding the extra fields.
    static func sortByKey(_ extra: inout [(String, String)]) {
        let count = extra.count
        guard count > 1 else { return }
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { prefixes in
            extra.withUnsafeMutableBufferPointer { items in
                for index in 0..<count { prefixes[index] = leadingBytes(of: items[index].0) }
                for index in 1..<count {
                    var place = index
                    while place > 0,
                        prefixes[place - 1] > prefixes[place]
                            || (prefixes[place - 1] == prefixes[place]
                                && items[place].0.precedesBytes(of: items[place - 1].0))
                    {
                        items.swapAt(place, place - 1)
                        prefixes.swapAt(place, place - 1)
                        place -= 1
                    }
                }
            }
        }
    }

    /// The first eight bytes of `key` as a big-endian integer, zeros after a shorter key's end.
    private static func leadingBytes(of key: String) -> UInt64 {
        var value: UInt64 = 0
        var taken = 0
        for byte in key.utf8 {
            value = value << 8 | UInt64(byte)
            taken += 1
            if taken == 8 { return value }
        }
        return value << (8 * (8 - taken))
    }
}
