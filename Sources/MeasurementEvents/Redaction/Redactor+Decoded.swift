/// The safety check behind every redaction: the text as a consumer could decode it, with every layer of
/// percent-encoding and JSON string escaping removed, must not show a secret key whose value is not
/// `REDACTED`.
extension Redactor {
    /// How many rounds of decoding the check applies: each round removes every layer of percent-encoding
    /// (`%2561` is `a`) and then one layer of JSON escapes (`\u0061`, `\\u0061` after the next round).
    static let decodingRounds = 6

    /// Whether some consumer decoding `text` (percent-decoding any number of times, either hex case, and
    /// unescaping JSON strings) would find a secret key followed by `=` or `:` and a value other than
    /// `REDACTED`. A text with neither `%` nor `\` is checked as it is, without copying.
    func exposesSecret(_ text: String) -> Bool {
        guard text.utf8.count > minimumKeyLength else { return false }
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "\\") }) else {
            // The quick scan rules out most text; only a possible key is checked for its value.
            return mayHoldSecret(text) && exposesSecret(decoded: Array(text.utf8))
        }
        var bytes = Array(text.utf8)
        for _ in 0..<Redactor.decodingRounds {
            let next = Redactor.unescapeJSON(Redactor.percentDecodeAll(bytes))
            if next == bytes { break }
            bytes = next
        }
        return exposesSecret(decoded: bytes)
    }

    /// Whether `redacted` has as many quotes, brackets, braces, commas, `&` and `#` as `original` once both
    /// are fully decoded: the byte scanner replaced values only, and did not run over the end of a value
    /// into the structure around it (in text encoded at several depths it can; structure then takes over).
    static func keepsStructure(_ original: String, _ redacted: String) -> Bool {
        func counts(_ text: String) -> [Int] {
            var bytes = Array(text.utf8)
            for _ in 0..<decodingRounds {
                let next = unescapeJSON(percentDecodeAll(bytes))
                if next == bytes { break }
                bytes = next
            }
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
    private func exposesSecret(decoded bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            for index in buffer.indices
            where buffer[index] == UInt8(ascii: "=") || buffer[index] == UInt8(ascii: ":") {
                guard secretKeyEnds(buffer, before: index) else { continue }
                if !Redactor.valueIsRedacted(buffer, after: index + 1) { return true }
            }
            return false
        }
    }

    /// Whether a secret key, optionally followed by a quote and spaces, ends right before `end`.
    private func secretKeyEnds(_ bytes: UnsafeBufferPointer<UInt8>, before end: Int) -> Bool {
        var end = end
        while end > 0, Redactor.isSpaceOrQuote(bytes[end - 1]) { end -= 1 }
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
        guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                if buffer[index] == UInt8(ascii: "%") {
                    let (value, length) = escape(buffer, at: index)
                    output.append(value)
                    index += length
                } else {
                    output.append(buffer[index])
                    index += 1
                }
            }
        }
        return output
    }

    /// `bytes` with one layer of JSON string escapes decoded (`\"`, `\\`, `\/`, `\n`..., `\uXXXX` with
    /// surrogate pairs); anything else is kept as it is.
    static func unescapeJSON(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "\\")) else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                output.append(bytes[index])
                index += 1
                continue
            }
            let next = bytes[index + 1]
            switch next {
            case UInt8(ascii: "u"):
                if let (scalar, length) = unicodeEscape(bytes, at: index) {
                    output.append(contentsOf: Array(String(Character(scalar)).utf8))
                    index += length
                } else {
                    output.append(bytes[index])
                    index += 1
                }
                continue
            case UInt8(ascii: "n"): output.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "t"): output.append(UInt8(ascii: "\t"))
            case UInt8(ascii: "r"): output.append(UInt8(ascii: "\r"))
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            default: output.append(next)  // \" \\ \/ and anything else: the character itself
            }
            index += 2
        }
        return output
    }

    /// The scalar of `\uXXXX` (or a surrogate pair `\uD83D\uDE00`) at `index`, and the bytes it spans.
    private static func unicodeEscape(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        func hex4(_ start: Int) -> UInt32? {
            guard start + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[start..<start + 4] {
                guard let digit = hexValue(byte) else { return nil }
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
