#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The safety check behind every redaction: the text as a consumer could decode it, with every layer of
/// percent-encoding and JSON string escaping removed, must not show a secret key whose value is not
/// `REDACTED`.
extension Redactor {
    /// How many rounds of decoding the check applies: each round removes every layer of percent-encoding
    /// (`%2561` is `a`) and then one layer of JSON escapes (`\u0061`, `\\u0061` after the next round).
    static let decodingRounds = 6

    /// Whether some consumer decoding `text` (percent-decoding any number of times, either hex case, and
    /// unescaping JSON strings) would find a secret key followed by `=` or `:` and a value other than
    /// `REDACTED`. A text with neither `%` nor `\` is checked as it is, without copying; any other is decoded
    /// in place in a temporary buffer (every decoding step shortens the text), on the stack when it is small:
    /// this runs for every value of every stored event.
    func exposesSecret(_ text: String) -> Bool {
        let count = text.utf8.count
        guard count > minimumKeyLength else { return false }
        // withCString hands out a native string's own NUL-terminated storage (embedded NULs included).
        return text.withCString { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: count + 1) { base in
                exposesSecret(terminated: UnsafeBufferPointer(start: base, count: count))
            }
        }
    }

    /// ``exposesSecret(_:)`` of a value's UTF-8 bytes read in place (an NDJSON line's), with the same answer as for
    /// their `String`: a line whose values show no secret is stored as it was read.
    package func exposesSecret(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard count > minimumKeyLength, let base = bytes.baseAddress else { return false }
        // The scans below run up to a NUL: a copy with one, on the stack when it is small.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + 1) { buffer in
            guard let copy = buffer.baseAddress else { return false }
            copy.update(from: base, count: count)
            copy[count] = 0
            return exposesSecret(terminated: UnsafeBufferPointer(start: copy, count: count))
        }
    }

    /// ``exposesSecret(_:)`` of `bytes`, which a NUL follows.
    private func exposesSecret(terminated bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Redactor.holdsEscape(bytes) else {
            // The quick scan rules out most text; only a possible key is checked for its value.
            return mayHoldSecret(bytes: bytes) && exposesSecret(decoded: bytes)
        }
        // Most escaped text (a percent-encoded `al_applink_data`) is ruled out without decoding it.
        return mayShowKeyOnceDecoded(bytes) && exposesSecret(decoding: bytes)
    }

    /// Whether `bytes`, decoded in a temporary buffer (on the stack when it is small), show a secret.
    func exposesSecret(decoding bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            _ = buffer.initialize(fromContentsOf: bytes)
            let length = Redactor.decodeInPlace(buffer, count: count)
            return exposesSecret(decoded: UnsafeBufferPointer(rebasing: buffer[0..<length]))
        }
    }

    /// Whether text may show a key before a separator once decoded, answered without decoding it: `false` only when
    /// decoding cannot. That holds when the text has no `\` and every percent escape stands, at any depth
    /// (``PercentEncoding/escape(in:at:)``), for a byte that is neither a token byte (``isTokenByte(_:)``, hex digits among them) nor
    /// `\`, and no run of token bytes that a byte which is no token byte ends is a key. Decoding then replaces
    /// each escape by one byte that is no token byte and leaves nothing for a later round: a `%` left as it was, or
    /// one an escape stood for, is followed by no two hex digits (they would have made an escape, or been part of
    /// this one, or been escapes that stand for digits), and no JSON escape can begin. So the decoded text's tokens
    /// are those runs, and a key followed by a separator would be one of them; a run that ends the text has no
    /// separator after it.
    func mayShowKeyOnceDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var index = 0
        var tokenStart = 0
        while index < count {
            let byte = base[index]
            if Redactor.isTokenByte(byte) {
                index &+= 1
                continue
            }
            if index &- tokenStart >= minimumKeyLength, mayEndKey(base[index &- 1]), isKey(bytes, tokenStart, index) {
                return true
            }
            if byte == UInt8(ascii: "\\") { return true }
            var length = 1
            if byte == UInt8(ascii: "%") {
                // A `%` that starts no escape stands for itself.
                let escape = PercentEncoding.escape(in: bytes, at: index)
                if Redactor.isTokenByte(escape.value) || escape.value == UInt8(ascii: "\\") { return true }
                length = escape.length
            }
            index &+= length
            tokenStart = index
        }
        return false
    }

    /// Whether `bytes` (followed by a NUL) hold a `%` or a `\`, found with `strcspn`, which is vectorised.
    private static func holdsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var position = 0
        while position < bytes.count {
            position += base.withMemoryRebound(to: CChar.self, capacity: bytes.count - position + 1) {
                strcspn($0 + position, "%\\")
            }
            guard position < bytes.count else { return false }
            if bytes[position] != 0 { return true }
            position += 1  // an embedded NUL stopped strcspn
        }
        return false
    }

    /// Decodes the first `count` bytes of `buffer` in place, up to ``decodingRounds`` rounds of percent
    /// escapes then JSON escapes, stopping at the first round that changes nothing; returns the new length.
    static func decodeInPlace(_ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int) -> Int {
        var length = count
        for _ in 0..<decodingRounds {
            let decoded = unescapeJSONInPlace(
                buffer, count: PercentEncoding.decodeAllLayersInPlace(buffer, count: length))
            // Every escape decoded shortens the text: an unchanged length is an unchanged text.
            if decoded == length { break }
            length = decoded
        }
        return length
    }

    /// Whether `redacted` has as many quotes, brackets, braces, commas, `&` and `#` as `original` once both
    /// are fully decoded: the byte scanner replaced values only, and did not run over the end of a value
    /// into the structure around it (in text encoded at several depths it can; structure then takes over).
    static func keepsStructure(_ original: String, _ redacted: String) -> Bool {
        func counts(_ text: String) -> [Int] {
            let bytes = decoding(Array(text.utf8), with: decodeInPlace)
            var tally = [Int](repeating: 0, count: 8)
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): tally[0] += 1
                case UInt8(ascii: "{"): tally[1] += 1
                case UInt8(ascii: "}"): tally[2] += 1
                case UInt8(ascii: "["): tally[3] += 1
                case UInt8(ascii: "]"): tally[4] += 1
                case UInt8(ascii: ","): tally[5] += 1
                case UInt8(ascii: "&"): tally[6] += 1
                case UInt8(ascii: "#"): tally[7] += 1
                default: break
                }
            }
            return tally
        }
        return counts(original) == counts(redacted)
    }

    /// Scans decoded bytes for `key` (optionally quoted) then `=` or `:` then a value that is not `REDACTED`.
    private func exposesSecret(decoded buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in buffer.indices where buffer[index] == UInt8(ascii: "=") || buffer[index] == UInt8(ascii: ":") {
            guard secretKeyEnds(buffer, before: index) else { continue }
            if !Redactor.valueIsRedacted(buffer, after: index + 1) { return true }
        }
        return false
    }

    /// Whether a secret key, optionally followed by a quote and spaces, ends right before `end`.
    private func secretKeyEnds(_ bytes: UnsafeBufferPointer<UInt8>, before end: Int) -> Bool {
        var end = end
        while end > 0, Redactor.isSpaceOrQuote(bytes[end - 1]) { end -= 1 }
        guard end > 0, mayEndKey(bytes[end - 1]) else { return false }
        var start = end
        while start > 0, Redactor.isTokenByte(bytes[start - 1]) { start -= 1 }
        return start < end && isKey(bytes, start, end)
    }

    /// Whether the value starting at `start` (after spaces and quotes) is `REDACTED`.
    private static func valueIsRedacted(_ bytes: UnsafeBufferPointer<UInt8>, after start: Int) -> Bool {
        var position = start
        while position < bytes.count, isSpaceOrQuote(bytes[position]) { position += 1 }
        let marker = Array(Redactor.replacement.utf8)
        guard position + marker.count <= bytes.count else { return false }
        for offset in 0..<marker.count where bytes[position + offset] != marker[offset] { return false }
        let next = position + marker.count
        return next == bytes.count || endsValue(bytes[next])
    }

    /// What may follow a redacted value in decoded text: a pair or member separator, a closing quote or
    /// bracket. Not a space: `access_token=a%20b` decodes to `access_token=a b`, one value.
    private static func endsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: ";"), UInt8(ascii: "\""), UInt8(ascii: "'"),
            UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\\"), UInt8(ascii: "\n"),
            UInt8(ascii: "\r"):
            return true
        default:
            return false
        }
    }

    @inline(__always)
    private static func isSpaceOrQuote(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "+"), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
            UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"):
            return true
        default:
            return false
        }
    }

    /// `bytes` with every percent escape decoded, however many times it was encoded (`%2522` is `"`).
    static func percentDecodeAll(_ bytes: [UInt8]) -> [UInt8] {
        bytes.contains(UInt8(ascii: "%")) ? decoding(bytes, with: PercentEncoding.decodeAllLayersInPlace) : bytes
    }

    /// A copy of `bytes` decoded in place by `decode` (which returns the new length).
    private static func decoding(
        _ bytes: [UInt8], with decode: (UnsafeMutableBufferPointer<UInt8>, Int) -> Int
    ) -> [UInt8] {
        var output = bytes
        let length = output.withUnsafeMutableBufferPointer { decode($0, $0.count) }
        output.removeLast(output.count - length)
        return output
    }

    /// `bytes` with one layer of JSON string escapes decoded (`\"`, `\\`, `\/`, `\n`..., `\uXXXX` with
    /// surrogate pairs); anything else is kept as it is.
    static func unescapeJSON(_ bytes: [UInt8]) -> [UInt8] {
        bytes.contains(UInt8(ascii: "\\")) ? decoding(bytes, with: unescapeJSONInPlace) : bytes
    }

    /// ``unescapeJSON(_:)`` of the first `count` bytes of `buffer`, written over them (an escape is longer
    /// than the UTF-8 it stands for); returns the new length.
    static func unescapeJSONInPlace(_ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int) -> Int {
        let bytes = UnsafeBufferPointer(rebasing: buffer[0..<count])
        var read = bytes.firstIndex(of: UInt8(ascii: "\\"), from: 0)  // the bytes before it decode to themselves
        var write = read
        func put(_ byte: UInt8) {
            buffer[write] = byte
            write += 1
        }
        while read < count {
            guard bytes[read] == UInt8(ascii: "\\"), read + 1 < count else {
                put(bytes[read])
                read += 1
                continue
            }
            let next = bytes[read + 1]
            switch next {
            case UInt8(ascii: "u"):
                if let (scalar, length) = unicodeEscape(bytes, at: read) {
                    UTF8.encode(scalar) { put($0) }
                    read += length
                } else {
                    put(bytes[read])
                    read += 1
                }
                continue
            case UInt8(ascii: "n"): put(UInt8(ascii: "\n"))
            case UInt8(ascii: "t"): put(UInt8(ascii: "\t"))
            case UInt8(ascii: "r"): put(UInt8(ascii: "\r"))
            case UInt8(ascii: "b"): put(0x08)
            case UInt8(ascii: "f"): put(0x0C)
            default: put(next)  // \" \\ \/ and anything else: the character itself
            }
            read += 2
        }
        return write
    }

    /// The scalar of `\uXXXX` (or a surrogate pair `\uD83D\uDE00`) at `index`, and the bytes it spans.
    private static func unicodeEscape(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int)? {
        func hex4(_ start: Int) -> UInt32? {
            guard start + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in UnsafeBufferPointer(rebasing: bytes[start..<start + 4]) {
                guard let digit = HexDigits.value(byte) else { return nil }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        guard let high = hex4(index + 2) else { return nil }
        if (0xD800..<0xDC00).contains(high), index + 12 <= bytes.count, bytes[index + 6] == UInt8(ascii: "\\"),
            bytes[index + 7] == UInt8(ascii: "u"), let low = hex4(index + 8), (0xDC00..<0xE000).contains(low)
        {
            let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            return Unicode.Scalar(value).map { ($0, 12) }
        }
        return Unicode.Scalar(high).map { ($0, 6) } ?? (Unicode.Scalar(0xFFFD)!, 6)
    }
}
