/// Reads and writes the NDJSON interchange of docs/events.md ("The NDJSON line"), one event per line:
///
///     {"id":"0192f5c3-...","name":"al_nav_out","ts":1763683200000,"fields":{"success":"1","type":"app"}}
///
/// Reading: `name` (non-empty string) and `ts` (integer milliseconds or an RFC 3339 string) are required;
/// `fields` values are flattened with ``Flattener``; aliases are normalised (`sourceHost` → `sourceURLHost`,
/// `intentData` → `outputURL`, `type` "failed" → "fail"); a missing `id` is derived from name, ts and
/// fields, so re-reading a file gives the same ids; other top-level keys are ignored. Any bytes give an
/// event or an ``NDJSONLineError``, never a crash. Writing gives keys in byte order, so the output of a
/// read event is byte-for-byte what was exported.
///
/// ```swift
/// let event = try NDJSONCodec().decode(#"{"name":"al_nav_in","ts":"2025-11-21T00:00:00Z","fields":{"ref":"a"}}"#)
/// NDJSONCodec.line(for: event)   // {"id":"…","name":"al_nav_in","ts":1763683200000,"fields":{"ref":"a"}}
/// ```
public struct NDJSONCodec: Sendable {
    /// The flattening limits applied to `fields`.
    public var flattener: Flattener

    /// Creates a codec with `flattener` (standard limits by default).
    public init(flattener: Flattener = Flattener()) {
        self.flattener = flattener
    }

    /// Reads one line (without its newline).
    /// - Throws: ``NDJSONLineError`` saying what is wrong with the line.
    public func decode(_ line: String) throws(NDJSONLineError) -> MeasurementEvent {
        var line = line
        let result = line.withUTF8 { bytes in
            Result { () throws(NDJSONLineError) -> MeasurementEvent in try decode(utf8: bytes) }
        }
        return try result.get()
    }

    /// Reads one line of UTF-8 bytes (without its newline). See ``decode(_:)``.
    public func decode(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(NDJSONLineError) -> MeasurementEvent {
        var truncated = 0
        return try decode(utf8: bytes, truncatedValues: &truncated)
    }

    /// Reads one line of UTF-8 bytes (without its newline), adding to `truncatedValues` how many values were
    /// cut to the length limit. See ``decode(_:)``.
    public func decode(
        utf8 bytes: UnsafeBufferPointer<UInt8>, truncatedValues: inout Int
    ) throws(NDJSONLineError) -> MeasurementEvent {
        if let event = decodeFlat(utf8: bytes, truncatedValues: &truncatedValues) { return event }
        return try decodeTree(utf8: bytes, truncatedValues: &truncatedValues)
    }

    /// The general reader: the whole line as a ``JSONValue`` tree, then its members. Every line that
    /// ``decodeFlat(utf8:truncatedValues:)`` does not take comes here, and every error comes from here.
    package func decodeTree(
        utf8 bytes: UnsafeBufferPointer<UInt8>, truncatedValues: inout Int
    ) throws(NDJSONLineError) -> MeasurementEvent {
        let value: JSONValue
        var decodedNUL = false
        do {
            value = try JSONValue.parse(utf8: bytes, decodedNUL: &decodedNUL)
        } catch {
            throw NDJSONLineError(error.description, code: "bad_json")
        }
        guard case .object(let object) = value else {
            throw NDJSONLineError("a line must be a JSON object", code: "not_an_object")
        }
        var name: String?
        var timestamp: JSONValue?
        var fieldsValue: JSONValue?
        var idValue: JSONValue?
        for member in object {
            switch member.key {
            case "name": name = member.value.stringValue ?? ""
            case "ts": timestamp = member.value
            case "fields": fieldsValue = member.value
            case "id": idValue = member.value
            default: continue  // unknown top-level keys are ignored
            }
        }
        guard let name, !name.isEmpty else {
            throw NDJSONLineError("\"name\" must be a non-empty string", code: "missing_name")
        }
        let milliseconds = try NDJSONCodec.milliseconds(timestamp)
        var fields = try flatFields(of: fieldsValue, truncatedValues: &truncatedValues)
        NDJSONCodec.normaliseAliases(&fields)
        let id: EventID
        switch idValue {
        case nil, .null?:
            id = NDJSONCodec.derivedID(name: name, timestamp: milliseconds, fields: fields)
        case .string(let text)? where !text.isEmpty:
            id = EventID(text)
        default:
            throw NDJSONLineError("\"id\" must be a non-empty string when present", code: "bad_id")
        }
        let event = MeasurementEvent(id: id, name: name, fields: fields, timestamp: milliseconds)
        // Only a line with the escape `\u0000` can hold a NUL (JSON has no other way to write one): one in a member
        // that is not read is no NUL of the event.
        guard !(decodedNUL && event.holdsNUL) else {
            throw NDJSONLineError(
                "the name, the id, a field's name or a field's value holds the character U+0000 (\\u0000)",
                code: "nul_character")
        }
        return event
    }

    /// The flat fields of a line's `fields` member (none for `null` or none), adding to `truncatedValues` how many
    /// values were cut.
    private func flatFields(
        of value: JSONValue?, truncatedValues: inout Int
    ) throws(NDJSONLineError) -> [String: String] {
        switch value {
        case nil, .null?:
            return [:]
        case .object(let members)?:
            do throws(FlatteningRejection) {
                let flat =
                    if let strings = try NDJSONCodec.flatStrings(members) {
                        try flattener.check(strings)
                    } else {
                        try flattener.flatten(members)
                    }
                truncatedValues += flat.truncatedValues
                return flat.fields
            } catch {
                throw NDJSONLineError(
                    "\"fields\": \(error.description)", code: error.dropReason.rawValue, dropReason: error.dropReason)
            }
        default:
            throw NDJSONLineError("\"fields\" must be an object", code: "bad_fields")
        }
    }

    package static func milliseconds(_ value: JSONValue?) throws(NDJSONLineError) -> Int64 {
        let milliseconds = try anyMilliseconds(value)
        guard EventTime.supportedRange.contains(milliseconds) else {
            throw NDJSONLineError(
                "\"ts\" is outside the years 0001 to 9999 (\(milliseconds) ms since the Unix epoch)", code: "bad_ts")
        }
        return milliseconds
    }

    /// The milliseconds of a `ts` value, in the supported range (``EventTime/supportedRange``) or not.
    private static func anyMilliseconds(_ value: JSONValue?) throws(NDJSONLineError) -> Int64 {
        switch value {
        case .int(let milliseconds)?:
            return milliseconds
        case .double(let value)? where value.rounded() == value && abs(value) < 9.0e15:
            return Int64(value)
        case .string(let text)?:
            guard let milliseconds = EventTime.milliseconds(rfc3339: text) else {
                throw NDJSONLineError("\"ts\" is not an RFC 3339 time: \(text.prefix(40))", code: "bad_ts")
            }
            return milliseconds
        case nil:
            throw NDJSONLineError("\"ts\" is missing", code: "missing_ts")
        default:
            throw NDJSONLineError("\"ts\" must be integer milliseconds or an RFC 3339 string", code: "bad_ts")
        }
    }

    /// The members as a dictionary when every value is a string (as in an export): flattening them changes
    /// nothing, so the limits check is all that is left to do.
    /// - Throws: ``FlatteningRejection/keysDifferOnlyInNormalisation(key:)`` for two keys that `String`
    ///   equality would merge but whose bytes differ.
    package static func flatStrings(_ members: JSONObject) throws(FlatteningRejection) -> [String: String]? {
        var fields: [String: String] = [:]
        fields.reserveCapacity(members.count)
        for member in members {
            guard case .string(let value) = member.value else { return nil }
            guard set(value, forKey: member.key, in: &fields) else {
                throw .keysDifferOnlyInNormalisation(key: String(member.key.prefix(40)))
            }
        }
        return fields
    }

    /// Sets `fields[key]` to `value`, with one hash for a new key; `false` when `fields` holds a key that
    /// `String` equality takes as `key` but whose bytes differ (canonically equivalent Unicode), which the
    /// caller refuses (the value is then set under the stored key, and the fields are not to be used).
    package static func set(_ value: String, forKey key: String, in fields: inout [String: String]) -> Bool {
        guard fields.updateValue(value, forKey: key) != nil, let index = fields.index(forKey: key) else {
            return true
        }
        return fields.keys[index].utf8.elementsEqual(key.utf8)
    }

    /// The aliases met in logs of other implementations, renamed to the catalogue's names.
    package static func normaliseAliases(_ fields: inout [String: String]) {
        rename("sourceHost", to: FieldName.sourceURLHost, in: &fields)
        rename("intentData", to: FieldName.outputURL, in: &fields)
        if fields[FieldName.type] == "failed" { fields[FieldName.type] = NavigationType.fail.rawValue }
    }

    /// Whether a member may be changed by ``normaliseAliases(_:)``: an alias, or the type `failed`.
    @inline(__always)
    package static func mayNeedNormalising(key: String, value: String) -> Bool {
        isAlias(key) || (key == FieldName.type && value == "failed")
    }

    /// Whether `key` is one of Android's names that ``normaliseAliases(_:)`` renames, whatever its value.
    @inline(__always)
    package static func isAlias(_ key: String) -> Bool {
        key == "sourceHost" || key == "intentData"
    }

    private static func rename(_ alias: String, to name: String, in fields: inout [String: String]) {
        if let value = fields[alias], fields[name] == nil {
            fields[name] = value
            fields[alias] = nil
        }
    }

    /// A version-8 UUID from a 128-bit FNV-1a hash of name, ts and the sorted fields.
    package static func derivedID(name: String, timestamp: Int64, fields: [String: String]) -> EventID {
        var hash = DerivedIDHash()
        hash.mix(name)
        hash.mix(String(timestamp))
        let pairs = Array(fields)
        for position in keyByteOrder(of: pairs) {
            hash.mix(pairs[position].key)
            hash.mix(pairs[position].value)
        }
        return hash.id
    }
}

/// The hash behind ``NDJSONCodec/derivedID(name:timestamp:fields:)``: 128-bit FNV-1a over texts, each followed by a
/// separator no UTF-8 text contains. A reader of bytes in place (``FlatLine``) mixes the same texts as bytes.
package struct DerivedIDHash {
    private var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
    private static let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B

    /// Mixes `text`'s UTF-8 bytes, then the separator.
    package mutating func mix(_ text: String) {
        var text = text
        text.withUTF8 { mix($0) }
    }

    /// Mixes `bytes`, then the separator.
    package mutating func mix(_ bytes: UnsafeBufferPointer<UInt8>) {
        for byte in bytes {
            hash ^= UInt128(byte)
            hash = hash &* DerivedIDHash.prime
        }
        hash ^= 0xFF
        hash = hash &* DerivedIDHash.prime
    }

    /// The version-8 UUID of the hash so far.
    package var id: EventID {
        let high = UInt64(truncatingIfNeeded: hash >> 64) & ~0xF000 | 0x8000
        let low = UInt64(truncatingIfNeeded: hash) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return EventID(uuidHigh: high, low: low)
    }
}

/// Why one NDJSON line is not an event.
public struct NDJSONLineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in a few words.
    public var reason: String
    /// What is wrong as a stable snake_case code, for programs (the receipt's `code`, `/metrics`): `bad_json`,
    /// `not_an_object`, `missing_name`, `missing_ts`, `bad_ts`, `bad_id`, `bad_fields`, `nul_character`, or a
    /// limit's code (`too_many_fields`, `key_too_long`, `too_deep`, `keys_differ_in_normalisation`). The table is
    /// in docs/http-api.md ("The receipt").
    public var code: String
    /// For a valid line whose event breaks a limit (too many fields, a key too long, too deep): the reason
    /// under which ingest counts the rejected event in the completeness table; `nil` for a malformed line.
    public var dropReason: DropReason?

    /// Creates an error.
    public init(_ reason: String, code: String, dropReason: DropReason? = nil) {
        self.reason = reason
        self.code = code
        self.dropReason = dropReason
    }

    /// The reason.
    public var description: String { reason }
}
