#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The byte scanner behind ``Redactor/redact(urlString:)``: it finds `key=value` and `"key":value`
/// pairs at any layer of percent-encoding and rewrites only the secret values' bytes.
extension Redactor {
    /// One character of the text after percent-decoding as many layers as it was encoded: `%22` is `"`
    /// at layer 1, `%2522` is `"` at layer 2. `start..<end` are its bytes in the text.
    struct Element {
        var byte: UInt8
        var layer: Int
        var start: Int
        var end: Int
    }

    /// A quick scan: whether `text` contains one of the keys as a whole word (percent escapes count as
    /// separators). `false` means the text certainly holds no secret pair, and is left as it is.
    func mayHoldSecret(_ text: String) -> Bool {
        let count = text.utf8.count
        guard count > minimumKeyLength else { return false }
        // withCString hands out a native string's own NUL-terminated storage (embedded NULs included).
        return text.withCString { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: count + 1) {
                mayHoldSecret(bytes: UnsafeBufferPointer(start: $0, count: count))
            }
        }
    }

    /// Finds each `=` or `:` (raw or percent-encoded at any depth) with `strcspn`, which is vectorised,
    /// and checks whether a key (optionally quoted) ends right before it. `bytes` must be followed by a NUL.
    func mayHoldSecret(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return false }
        var position = 0
        while position < count {
            position += base.withMemoryRebound(to: CChar.self, capacity: count - position + 1) {
                strcspn($0 + position, "=:%")
            }
            guard position < count else { return false }
            switch bytes[position] {
            case 0:  // an embedded NUL stopped strcspn
                position += 1
            case UInt8(ascii: "%"):
                let (value, length) = PercentEncoding.escape(in: bytes, at: position)
                if value == UInt8(ascii: "=") || value == UInt8(ascii: ":"), keyEnds(bytes, before: position) {
                    return true
                }
                position += length
            default:
                if keyEnds(bytes, before: position) { return true }
                position += 1
            }
        }
        return false
    }

    /// Whether a key, optionally followed by a quote (`"`, `\"`, or `"` percent-encoded) and spaces, ends at `end`.
    private func keyEnds(_ bytes: UnsafeBufferPointer<UInt8>, before end: Int) -> Bool {
        var end = end
        while end > 0, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "+") { end -= 1 }
        if end > 0, bytes[end - 1] == UInt8(ascii: "\"") {
            end -= 1
            if end > 0, bytes[end - 1] == UInt8(ascii: "\\") { end -= 1 }
        } else {
            end -= Redactor.escapedQuoteLength(bytes, endingAt: end)
        }
        guard end > 0, mayEndKey(bytes[end - 1]) else { return false }
        var start = end
        while start > 0, Redactor.isTokenByte(bytes[start - 1]) { start -= 1 }
        guard start < end else { return false }
        if isKey(bytes, start, end) { return true }
        // After a percent escape the token scanned back includes the escape's hex digits (`%2522code`).
        if start > 0, bytes[start - 1] == UInt8(ascii: "%") {
            var trimmed = start + 2
            while trimmed < end {
                if isKey(bytes, trimmed, end) { return true }
                trimmed += 2
            }
        }
        return false
    }

    /// The length of a percent-encoded `"` (`%22`, `%2522`, ...) ending at `end`, or 0.
    static func escapedQuoteLength(_ bytes: UnsafeBufferPointer<UInt8>, endingAt end: Int) -> Int {
        for layer in 1...4 {
            let length = 1 + 2 * layer
            guard end - length >= 0 else { return 0 }
            guard bytes[end - length] == UInt8(ascii: "%") else { continue }
            var matches = bytes[end - 2] == UInt8(ascii: "2") && bytes[end - 1] == UInt8(ascii: "2")
            var pair = end - length + 1
            while matches, pair < end - 2 {
                matches = bytes[pair] == UInt8(ascii: "2") && bytes[pair + 1] == UInt8(ascii: "5")
                pair += 2
            }
            if matches { return length }
        }
        return 0
    }

    /// Whether `byte` may end a key (in any case): a quick test before a token is scanned back to its start.
    @inline(__always)
    func mayEndKey(_ byte: UInt8) -> Bool { lastBytes & (1 << UInt64(byte.asciiLowercased & 63)) != 0 }

    /// Whether `bytes[start..<end]`, lowercased, is one of the keys.
    @inline(__always)
    func isKey(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let length = end - start
        return length < 64 && keyLengths & (1 << UInt64(length)) != 0
            && firstBytes & (1 << UInt64(bytes[start].asciiLowercased & 63)) != 0
            && matches(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    private func matches(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        for key in keyBytes where key.count == token.count {
            var equal = true
            for offset in 0..<token.count where token[offset].asciiLowercased != key[offset] {
                equal = false
                break
            }
            if equal { return true }
        }
        return false
    }

    /// Rewrites every secret value of `text`; see ``Redactor``.
    func redactText(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let elements = Redactor.decode(bytes)
        var replacements: [(range: Range<Int>, text: [UInt8])] = []
        var index = 0
        while index < elements.count {
            guard Redactor.isTokenByte(elements[index].byte),
                index == 0 || !Redactor.isTokenByte(elements[index - 1].byte)
            else {
                index += 1
                continue
            }
            var end = index
            while end < elements.count, Redactor.isTokenByte(elements[end].byte) { end += 1 }
            let token = elements[index..<end].map { $0.byte.asciiLowercased }
            if keyBytes.contains(token), let found = valueRange(in: elements, after: end) {
                replacements.append((found.range, found.replacement))
                index = found.next
            } else {
                index = end
            }
        }
        guard !replacements.isEmpty else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var position = 0
        for replacement in replacements {
            output.append(contentsOf: bytes[position..<replacement.range.lowerBound])
            output.append(contentsOf: replacement.text)
            position = replacement.range.upperBound
        }
        output.append(contentsOf: bytes[position...])
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of the value that follows a key ending before element `start`, with what replaces them.
    private func valueRange(in elements: [Element], after start: Int) -> (
        range: Range<Int>, replacement: [UInt8], next: Int
    )? {
        var position = start
        if let quote = Redactor.quoteLength(elements, at: position) { position += quote }
        position = Redactor.skipSpace(elements, from: position)
        guard position < elements.count,
            elements[position].byte == UInt8(ascii: "=") || elements[position].byte == UInt8(ascii: ":")
        else { return nil }
        let delimiter = elements[position]
        position = Redactor.skipSpace(elements, from: position + 1)
        let redacted = Array(Redactor.replacement.utf8)
        if let quote = Redactor.quoteLength(elements, at: position) {
            // A JSON string: up to the same kind of quote at the same layer.
            let layer = elements[position + quote - 1].layer
            let first = position + quote
            var end = first
            while end < elements.count {
                if let closing = Redactor.quoteLength(elements, at: end), closing == quote,
                    elements[end + closing - 1].layer == layer
                {
                    break
                }
                if quote == 1, elements[end].byte == UInt8(ascii: "\\") { end += 1 }  // an escape inside the string
                end += 1
            }
            end = min(end, elements.count)
            let lower = first < elements.count ? elements[first].start : elements[elements.count - 1].end
            let upper = end > first ? elements[end - 1].end : lower
            return (lower..<upper, redacted, end)
        }
        // A byte encoded deeper than the delimiter is data (`access_token=a%20b` is one value `a b`).
        var end = position
        while end < elements.count,
            elements[end].layer > delimiter.layer || !Redactor.isTerminator(elements[end].byte)
        {
            end += 1
        }
        guard end > position else { return nil }
        var replacement = redacted
        if delimiter.byte == UInt8(ascii: ":") {
            // A JSON value that is not a string becomes the string "REDACTED", quoted at the delimiter's layer.
            let quote = Redactor.encoded(UInt8(ascii: "\""), layer: delimiter.layer)
            replacement = quote + redacted + quote
        }
        return (elements[position].start..<elements[end - 1].end, replacement, end)
    }

    /// Decodes percent escapes of any depth into elements (each escape read by
    /// ``PercentEncoding/escape(in:at:)``, as ``percentDecodeAll(_:)`` reads them).
    static func decode(_ bytes: [UInt8]) -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(bytes.count)
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                if buffer[index] == UInt8(ascii: "%") {
                    // `%XX` is one layer, each `25` after the `%` one more; a lone `%` is itself (layer 0).
                    let (value, length) = PercentEncoding.escape(in: buffer, at: index)
                    elements.append(Element(byte: value, layer: (length - 1) / 2, start: index, end: index + length))
                    index += length
                } else {
                    elements.append(Element(byte: buffer[index], layer: 0, start: index, end: index + 1))
                    index += 1
                }
            }
        }
        return elements
    }

    /// `"` (1 element) or `\"` (2 elements) at `index`, or `nil`.
    static func quoteLength(_ elements: [Element], at index: Int) -> Int? {
        guard index < elements.count else { return nil }
        if elements[index].byte == UInt8(ascii: "\"") { return 1 }
        if elements[index].byte == UInt8(ascii: "\\"), index + 1 < elements.count,
            elements[index + 1].byte == UInt8(ascii: "\"")
        {
            return 2
        }
        return nil
    }

    static func skipSpace(_ elements: [Element], from start: Int) -> Int {
        var index = start
        while index < elements.count {
            switch elements[index].byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            case UInt8(ascii: "+") where elements[index].layer == 0: index += 1  // a space in form encoding
            default: return index
            }
        }
        return index
    }

    /// The text of `byte` percent-encoded `layer` times.
    static func encoded(_ byte: UInt8, layer: Int) -> [UInt8] {
        guard layer > 0 else { return [byte] }
        var text: [UInt8] = [UInt8(ascii: "%")]
        for _ in 1..<layer { text += [UInt8(ascii: "2"), UInt8(ascii: "5")] }
        text += [HexDigits.upper[Int(byte >> 4)], HexDigits.upper[Int(byte & 0xF)]]
        return text
    }

    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        // Bit sets of [0-9-] in 0..<64 and [A-Za-z_] in 64..<128.
        let low: UInt64 = 0x03FF_2000_0000_0000
        let high: UInt64 = 0x07FF_FFFE_87FF_FFFE
        return byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }

    /// Ends an unquoted value: a pair separator, a quote, white space, or JSON punctuation.
    static func isTerminator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: ";"), UInt8(ascii: "\""), UInt8(ascii: "'"),
            UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ","),
            UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\\"), UInt8(ascii: "<"), UInt8(ascii: ">"):
            return true
        default:
            return false
        }
    }
}
