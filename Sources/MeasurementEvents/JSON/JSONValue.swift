/// A JSON value, as posted by host code, carried in `al_applink_data` or read from NDJSON.
///
/// Objects keep their members in order (``JSONObject``), so that JSON written from a value lists keys
/// in the order they were given. Integers that fit 64 bits stay integers; other numbers are doubles.
///
/// ```swift
/// let value = try JSONValue.parse(#"{"target_url":"https://example.com/a","extras":{"fb_app_id":123}}"#)
/// value["extras"]?["fb_app_id"]       // .int(123)
/// value.jsonText()                    // compact JSON, members in their order
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The member `key` of an object, or `nil` for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The string, when the value is a string.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The object, when the value is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }
}

/// A JSON object whose members keep their order; a key set twice keeps its first place and its last value.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One member of an object.
    public struct Member: Sendable, Hashable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// Creates a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in order, each key once.
    public private(set) var members: [Member] = []

    /// An empty object.
    public init() {}

    /// An object with `members` in order; for a repeated key, the last value wins. Keys compare by their
    /// UTF-8 bytes, not by `String` equality: `café` as U+00E9 and as `e` + U+0301 are two members.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        // Linear search while small; past 16 members an index keeps hostile input (many keys) linear.
        var positions: [ByteKey: Int]?
        for (key, value) in members {
            if positions == nil, self.members.count >= 16 {
                positions = Dictionary(
                    self.members.enumerated().map { (ByteKey($1.key), $0) }, uniquingKeysWith: { $1 })
            }
            let found =
                positions != nil
                ? positions![ByteKey(key)] : self.members.firstIndex(where: { $0.key.hasSameBytes(as: key) })
            if let found {
                self.members[found].value = value
            } else {
                positions?[ByteKey(key)] = self.members.count
                self.members.append(Member(key: key, value: value))
            }
        }
    }

    /// An object from a dictionary literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of `key`; setting `nil` removes the member, setting a value replaces it in place or appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            members.first(where: { $0.key == key })?.value
        }
        set {
            let index = members.firstIndex(where: { $0.key == key })
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append(Member(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// Iterates the members in order.
    public func makeIterator() -> IndexingIterator<[Member]> {
        members.makeIterator()
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Writing

extension JSONValue {
    /// Compact JSON text (no spaces). Strings escape `"`, `\` and control characters only, so text
    /// stays readable; doubles use their shortest round-trip form; a non-finite double becomes `null`,
    /// which JSON cannot otherwise express.
    /// - Parameter sortedKeys: write object members sorted by key instead of in their order.
    public func jsonText(sortedKeys: Bool = false) -> String {
        var output = ""
        write(to: &output, sortedKeys: sortedKeys)
        return output
    }

    func write(to output: inout String, sortedKeys: Bool) {
        switch self {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .int(let value):
            output += String(value)
        case .double(let value):
            output += value.isFinite ? JSONValue.shortest(value) : "null"
        case .string(let value):
            JSONValue.writeString(value, to: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output, sortedKeys: sortedKeys)
            }
            output += "]"
        case .object(let object):
            output += "{"
            let members = sortedKeys ? object.members.sorted { $0.key < $1.key } : object.members
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output, sortedKeys: sortedKeys)
            }
            output += "}"
        }
    }

    /// The shortest text that reads back as the same double ("0.1", "1e-05", "3.0").
    static func shortest(_ value: Double) -> String {
        value.description
    }

    /// Appends `value` as a JSON string literal (``writeString(_:to:)-([UInt8])``'s escapes); a value with nothing
    /// to escape, the common case, is appended as it is.
    public static func writeString(_ value: String, to output: inout String) {
        var value = value
        guard value.withUTF8({ $0.firstJSONSpecial(from: 0) < $0.count }) else {
            output += "\""
            output += value
            output += "\""
            return
        }
        var bytes: [UInt8] = []
        writeString(value, to: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as a JSON string literal to UTF-8 `bytes`: quoted, with `"`, `\` and the control characters
    /// escaped (`\n`, `\r`, `\t`, `\b`, `\f`, else `\u00XX`), every other byte as it is, in runs between escapes.
    package static func writeString(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { writeString(utf8: $0, to: &bytes) }
    }

    /// ``writeString(_:to:)-(_,[UInt8])`` of UTF-8 bytes read in place.
    package static func writeString(utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var start = 0
        var index = utf8.firstJSONSpecial(from: 0)
        while index < utf8.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
            appendEscape(of: utf8[index], to: &bytes)
            start = index + 1
            index = utf8.firstJSONSpecial(from: start)
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(of byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            bytes.append(contentsOf: "u00".utf8)
            bytes.append(HexDigits.lower[Int(byte >> 4)])
            bytes.append(HexDigits.lower[Int(byte & 0xF)])
        }
    }
}

/// A key that compares and hashes by its UTF-8 bytes (`String` equality is canonical equivalence).
private struct ByteKey: Hashable {
    let key: String

    init(_ key: String) { self.key = key }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.key.hasSameBytes(as: rhs.key) }

    func hash(into hasher: inout Hasher) { key.hashBytes(into: &hasher) }
}
