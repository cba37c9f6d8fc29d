/// Turns JSON-like values into the flat `[String: String]` fields every event carries.
///
/// The rule (docs/events.md, "Flattening"), deterministic for any input:
/// - a string stays as it is; an integer is written in decimal; a double in its shortest round-trip form
///   (`0.1`, `3.0`, `1e-05`; a non-finite double as `nan`, `inf` or `-inf`); a boolean is `"1"` or `"0"`;
///   `null` drops the key;
/// - a nested object contributes `parent/child` keys, recursively (`extras/fb_app_id`);
/// - an array becomes compact JSON text with object keys sorted (non-finite doubles inside it become `null`);
/// - when keys collide, the key written with fewer levels of nesting wins (a literal `"extras/fb_app_id"`
///   beats `"extras": {"fb_app_id": ...}`); between equal levels the member that comes first wins.
///
/// Limits (``FlatteningLimits``): an event with more fields than allowed, a key longer than allowed, or
/// nesting deeper than allowed is rejected (``FlatteningRejection``); a value longer than allowed is cut at
/// a character boundary and ends with ``FlatteningLimits/truncationMarker``, and ``FlattenedFields/truncatedValues``
/// counts it. The bus counts both in its statistics.
///
/// ```swift
/// let flat = try Flattener().flatten(["extras": ["fb_app_id": 123, "tags": ["a", "b"]], "ok": true])
/// // flat.fields == ["extras/fb_app_id": "123", "extras/tags": #"["a","b"]"#, "ok": "1"]
/// ```
public struct Flattener: Sendable {
    /// The limits applied.
    public var limits: FlatteningLimits

    /// Creates a flattener with `limits` (by default ``FlatteningLimits/standard``).
    public init(limits: FlatteningLimits = .standard) {
        self.limits = limits
    }

    /// Flattens the members of `object`.
    /// - Throws: ``FlatteningRejection`` when the result would break a limit other than value length.
    public func flatten(_ object: JSONObject) throws(FlatteningRejection) -> FlattenedFields {
        var entries: [(key: String, depth: Int, value: String)] = []
        try collect(object, prefix: "", depth: 0, into: &entries)
        // Stable sort by depth: within a depth the first member keeps its place, and so wins.
        let ordered = entries.enumerated().sorted { ($0.element.depth, $0.offset) < ($1.element.depth, $1.offset) }
        var fields: [String: String] = [:]
        fields.reserveCapacity(ordered.count)
        var truncated = 0
        for (_, entry) in ordered {
            if let index = fields.index(forKey: entry.key) {
                // String equality is canonical equivalence: refuse, rather than merge, keys whose bytes differ.
                if !fields[index].key.utf8.elementsEqual(entry.key.utf8) {
                    throw .keysDifferOnlyInNormalisation(key: String(entry.key.prefix(40)))
                }
                continue
            }
            let (value, cut) = truncate(entry.value)
            if cut { truncated += 1 }
            fields[entry.key] = value
        }
        guard fields.count <= limits.maximumFields else {
            throw .tooManyFields(count: fields.count, limit: limits.maximumFields)
        }
        return FlattenedFields(fields: fields, truncatedValues: truncated)
    }

    /// Checks flat string fields against the limits, truncating over-long values.
    /// - Throws: ``FlatteningRejection`` for too many fields or a key over the limit.
    public func check(_ fields: [String: String]) throws(FlatteningRejection) -> FlattenedFields {
        guard fields.count <= limits.maximumFields else {
            throw .tooManyFields(count: fields.count, limit: limits.maximumFields)
        }
        var result = fields
        var truncated = 0
        for (key, value) in fields {
            guard key.utf8.count <= limits.maximumKeyBytes else {
                throw .keyTooLong(prefix: String(key.prefix(40)), limit: limits.maximumKeyBytes)
            }
            if value.utf8.count > limits.maximumValueBytes {
                result[key] = truncate(value).0
                truncated += 1
            }
        }
        return FlattenedFields(fields: result, truncatedValues: truncated)
    }

    private func collect(
        _ object: JSONObject, prefix: String, depth: Int,
        into entries: inout [(key: String, depth: Int, value: String)]
    ) throws(FlatteningRejection) {
        guard depth <= limits.maximumDepth else { throw .tooDeep(limit: limits.maximumDepth) }
        for member in object {
            let key = prefix.isEmpty ? member.key : prefix + "/" + member.key
            guard key.utf8.count <= limits.maximumKeyBytes else {
                throw .keyTooLong(prefix: String(key.prefix(40)), limit: limits.maximumKeyBytes)
            }
            switch member.value {
            case .null:
                continue
            case .object(let nested):
                try collect(nested, prefix: key, depth: depth + 1, into: &entries)
            case let scalar:
                entries.append((key, depth, Flattener.text(of: scalar)))
            }
            // Stop early on hostile input instead of building a huge list first.
            if entries.count > limits.maximumFields * 4 {
                throw .tooManyFields(count: entries.count, limit: limits.maximumFields)
            }
        }
    }

    /// The flat text of a non-object value.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .bool(let value): return value ? "1" : "0"
        case .int(let value): return String(value)
        case .double(let value): return JSONValue.shortest(value)
        case .string(let value): return value
        case .array: return value.jsonText(sortedKeys: true)
        case .object: return value.jsonText(sortedKeys: true)
        }
    }

    private func truncate(_ value: String) -> (String, Bool) {
        guard value.utf8.count > limits.maximumValueBytes else { return (value, false) }
        let marker = FlatteningLimits.truncationMarker
        let budget = max(0, limits.maximumValueBytes - marker.utf8.count)
        var used = 0
        var end = value.startIndex
        for character in value {
            let size = character.utf8.count
            if used + size > budget { break }
            used += size
            end = value.index(after: end)
        }
        return (String(value[..<end]) + marker, true)
    }
}

/// The limits of flattening: how many fields an event may have and how long keys and values may be.
public struct FlatteningLimits: Sendable, Hashable {
    /// At most this many fields per event; more rejects the event.
    public var maximumFields: Int
    /// At most this many UTF-8 bytes per key; a longer key rejects the event.
    public var maximumKeyBytes: Int
    /// At most this many UTF-8 bytes per value; a longer value is cut and ends with ``truncationMarker``.
    public var maximumValueBytes: Int
    /// At most this many levels of nested objects; deeper rejects the event.
    public var maximumDepth: Int

    /// The text that ends a value cut to ``maximumValueBytes``.
    public static let truncationMarker = "…[truncated]"

    /// 256 fields, keys of 256 bytes, values of 64 KiB, 16 levels of nesting.
    public static let standard = FlatteningLimits(
        maximumFields: 256, maximumKeyBytes: 256, maximumValueBytes: 65_536, maximumDepth: 16)

    /// Creates limits.
    public init(maximumFields: Int, maximumKeyBytes: Int, maximumValueBytes: Int, maximumDepth: Int) {
        self.maximumFields = maximumFields
        self.maximumKeyBytes = maximumKeyBytes
        self.maximumValueBytes = maximumValueBytes
        self.maximumDepth = maximumDepth
    }
}

/// Flat fields, and how many values were cut to the length limit.
public struct FlattenedFields: Sendable, Hashable {
    /// The flat fields.
    public var fields: [String: String]
    /// How many values were truncated (each ends with ``FlatteningLimits/truncationMarker``).
    public var truncatedValues: Int
}

/// Why values could not be flattened into an event's fields.
public enum FlatteningRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// More fields than ``FlatteningLimits/maximumFields``.
    case tooManyFields(count: Int, limit: Int)
    /// A key longer than ``FlatteningLimits/maximumKeyBytes`` (its first 40 characters given).
    case keyTooLong(prefix: String, limit: Int)
    /// Objects nested deeper than ``FlatteningLimits/maximumDepth``.
    case tooDeep(limit: Int)
    /// Two keys with different bytes that Swift's `String` equality takes as one (canonically equivalent
    /// Unicode: `café` as U+00E9 and as `e` + U+0301). Keys are compared by bytes, so the event is refused
    /// rather than silently losing one of the two values.
    case keysDifferOnlyInNormalisation(key: String)

    /// The drop reason under which the bus and the store count such a rejection.
    public var dropReason: DropReason {
        switch self {
        case .tooManyFields: return .tooManyFields
        case .keyTooLong: return .keyTooLong
        case .tooDeep: return .tooDeep
        case .keysDifferOnlyInNormalisation: return .keysDifferOnlyInNormalisation
        }
    }

    /// A one-line message naming the limit.
    public var description: String {
        switch self {
        case .tooManyFields(let count, let limit): return "event has \(count) fields; the limit is \(limit)"
        case .keyTooLong(let prefix, let limit): return "field key '\(prefix)…' is longer than \(limit) bytes"
        case .tooDeep(let limit): return "fields are nested deeper than \(limit) levels"
        case .keysDifferOnlyInNormalisation(let key):
            return "two field keys are '\(key)' in different Unicode normalisations (keys compare by bytes)"
        }
    }
}
