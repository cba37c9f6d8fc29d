#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension UInt8 {
    /// This byte as a small letter when it is an ASCII capital; any other byte as it is (UTF-8 continuation
    /// bytes included, so a comparison built on it never matches a non-ASCII letter).
    @inlinable package var asciiLowercased: UInt8 {
        self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self
    }

    /// Whether this byte is an ASCII digit, `0` to `9`.
    @inlinable package var isASCIIDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }

    /// Whether this byte is an ASCII letter or digit.
    @inlinable package var isASCIIAlphanumeric: Bool {
        isASCIIDigit || (asciiLowercased >= UInt8(ascii: "a") && asciiLowercased <= UInt8(ascii: "z"))
    }
}

extension Collection<UInt8> {
    /// Whether these bytes spell `lowercase` (lowercase ASCII bytes), ASCII letters compared in any case and
    /// every other byte exactly.
    @inlinable package func equalsIgnoringASCIICase(_ lowercase: some Collection<UInt8>) -> Bool {
        count == lowercase.count && zip(self, lowercase).allSatisfy { $0.asciiLowercased == $1 }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The position of the first `byte` at or after `start`, or `count` when there is none: found with `memchr`,
    /// many times faster than a generic search on a slice of the buffer.
    package func firstIndex(of byte: UInt8, from start: Int) -> Int {
        guard start < count, let base = baseAddress, let found = memchr(base + start, Int32(byte), count - start)
        else { return count }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// The position of the first byte at or after `start` that a JSON string cannot hold as it is (`"`, `\`, or a
    /// control character under 0x20), or `count` when there is none. Read eight bytes at a time while a word holds
    /// none of them (exact tests for a zero byte and for a byte under 0x20): a byte at a time, the JSON reader's
    /// loop was a sixth of the time spent reading realistic NDJSON lines, whose URLs run to 300 bytes.
    package func firstJSONSpecial(from start: Int) -> Int {
        var highBits: UInt8 = 0
        return firstJSONSpecial(from: start, highBits: &highBits)
    }

    /// ``firstJSONSpecial(from:)``, with the OR of the bytes before the one found added to `highBits`: the JSON
    /// reader's ASCII check, which spares it validating the string's UTF-8.
    package func firstJSONSpecial(from start: Int, highBits: inout UInt8) -> Int {
        var index = start
        if let base = baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            var seen: UInt64 = 0
            while count - index >= 8 {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
                let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
                let special =
                    ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)
                    | ((word &- ones &* 0x20) & ~word)
                if special & highs != 0 { break }
                seen |= word
                index += 8
            }
            if seen & highs != 0 { highBits |= 0x80 }
        }
        while index < count {
            let byte = self[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            highBits |= byte
            index += 1
        }
        return count
    }
}

extension Int64 {
    /// Writes this value in decimal, as `String(self)` gives it, at `out`, which has room for 20 bytes (a sign and 19
    /// digits): for writers of bytes (`COPY` lines, a derived id's hash) that need no `String`.
    /// - Returns: how many bytes it wrote.
    @inline(__always)
    package func writeDecimal(to out: UnsafeMutablePointer<UInt8>) -> Int {
        let value = self
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits, last first
        let count = withUnsafeMutableBytes(of: &digits) { scratch in
            var count = 0
            repeat {
                scratch[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            return count
        }
        var written = 0
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            written = 1
        }
        withUnsafeBytes(of: &digits) { scratch in
            for index in stride(from: count - 1, through: 0, by: -1) {
                out[written] = scratch[index]
                written += 1
            }
        }
        return written
    }
}
