/// Why a JSON text could not be read; `offset` is the byte offset in the input.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in a few words.
    public var reason: String
    /// The byte offset in the input where it was found.
    public var offset: Int

    /// A one-line message for users.
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects ``parse(_:)`` accepts; deeper input is an error, not a crash.
    public static let maximumNestingDepth = 256

    /// Reads one JSON value (RFC 8259) that fills the whole text, surrounding white space allowed.
    /// - Throws: ``JSONParseError`` for malformed JSON, invalid UTF-8, lone surrogate escapes, or nesting
    ///   deeper than ``maximumNestingDepth``.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(JSONParseError) -> JSONValue in try parse(utf8: bytes) }
        }
        return try result.get()
    }

    /// Reads one JSON value from UTF-8 bytes. See ``parse(_:)``.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var decodedNUL = false
        return try parse(utf8: bytes, decodedNUL: &decodedNUL)
    }

    /// ``parse(utf8:)``, setting `decodedNUL` when a string of the value held the escape `\u0000`.
    package static func parse(
        utf8 bytes: UnsafeBufferPointer<UInt8>, decodedNUL: inout Bool
    ) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.parseValue(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the value") }
        decodedNUL = parser.decodedNUL
        return value
    }
}

/// A reader of JSON text, one value at a time; `package` so that readers of one known shape (NDJSONCodec's
/// flat lines) can read it without building a ``JSONValue`` tree.
package struct JSONParser {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0
    /// Whether a string read so far held the escape `\u0000` (NUL, which a reader of events refuses).
    package private(set) var decodedNUL = false

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func error(_ reason: String) -> JSONParseError {
        JSONParseError(reason: reason, offset: index)
    }

    package mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    package mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < JSONValue.maximumNestingDepth else { throw error("nesting too deep") }
            return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["):
            guard depth < JSONValue.maximumNestingDepth else { throw error("nesting too deep") }
            return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw error("unexpected character")
        }
    }

    package mutating func expect(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("unexpected character")
        }
        index += count
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONObject {
        index += 1  // {
        var members: [(String, JSONValue)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return JSONObject()
        }
        while true {
            let key = try parseMemberKey()
            members.append((key, try parseValue(depth: depth)))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return JSONObject(members)  // linear even for many keys
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    /// A member's key and its colon, with the spaces around them, leaving the parser at the value.
    package mutating func parseMemberKey() throws(JSONParseError) -> String {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
        let key = try parseString()
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
        index += 1
        skipSpace()
        return key
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> [JSONValue] {
        index += 1  // [
        var values: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return values
        }
        while true {
            skipSpace()
            values.append(try parseValue(depth: depth))
            skipSpace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return values
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    package mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes. ASCII needs no validation (String(validating:) is generic and costly per call).
        var highBits: UInt8 = 0
        index = bytes.firstJSONSpecial(from: index, highBits: &highBits)
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
            if highBits < 0x80 {
                index += 1
                return String(decoding: raw, as: UTF8.self)
            }
            guard let string = String(validating: raw, as: UTF8.self) else {
                throw JSONParseError(reason: "invalid UTF-8 in a string", offset: start)
            }
            index += 1
            return string
        }
        if index < bytes.count, bytes[index] < 0x20 { throw error("control character in a string") }
        return try parseEscapedString(from: start)
    }

    /// The rest of a string that holds an escape: the bytes from `start` (just after the opening quote) to
    /// `index` are plain, `index` is at the first backslash (or the end of input).
    mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        var scratch = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: scratch, as: UTF8.self) else {
                    throw JSONParseError(reason: "invalid UTF-8 in a string", offset: start)
                }
                index += 1
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of input") }
                let escape = bytes[index]
                index += 1
                try appendEscape(escape, to: &scratch)
            default:
                if byte < 0x20 { throw error("control character in a string") }
                // The run up to the next quote, backslash or control character, found a word at a time.
                let end = bytes.firstJSONSpecial(from: index + 1)
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                index = end
            }
        }
        throw error("unterminated string")
    }

    /// Appends to `scratch` the bytes that the escape with letter `escape` stands for (the backslash and the
    /// letter already read; a `u` escape reads its hex digits, and a low surrogate's, from `index`).
    mutating func appendEscape(_ escape: UInt8, to scratch: inout [UInt8]) throws(JSONParseError) {
        switch escape {
        case UInt8(ascii: "\""): scratch.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): scratch.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): scratch.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("lone surrogate escape") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("lone surrogate escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("lone surrogate escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid escape") }
            if scalar == 0 { decodedNUL = true }
            scratch.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw error("invalid escape")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            throw error("invalid number")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("invalid number") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        guard let value = Double(text) else { throw JSONParseError(reason: "invalid number", offset: start) }
        return .double(value)
    }
}
