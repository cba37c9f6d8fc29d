import MeasurementEvents

/// Byte-level text operations for the per-hit path, where Foundation's `String.contains` and
/// `removingPercentEncoding` (through `NSString`) cost more than the rest of the hit together.
enum ASCIIText {
    /// Whether `text` contains `marker` (lowercase ASCII bytes), ASCII letters compared case-insensitively
    /// and every other byte exactly.
    static func contains(_ text: String, marker: [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard !marker.isEmpty else { return true }
            guard bytes.count >= marker.count else { return false }
            for start in 0...(bytes.count - marker.count) {
                var offset = 0
                while offset < marker.count, bytes[start + offset].asciiLowercased == marker[offset] { offset += 1 }
                if offset == marker.count { return true }
            }
            return false
        }
    }

    /// `text` with `+` as a space and `%XX` as the byte XX; `nil` when a `%` is not followed by two hex
    /// digits or the bytes are not UTF-8 (as Foundation's `removingPercentEncoding` answers).
    static func formDecoded(_ text: Substring) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
                return String(decoding: bytes, as: UTF8.self)
            }
            var decoded: [UInt8] = []
            decoded.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, let high = Redactor.hexValue(bytes[index + 1]),
                        let low = Redactor.hexValue(bytes[index + 2])
                    else { return nil }
                    decoded.append(high << 4 | low)
                    index += 3
                } else {
                    decoded.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                    index += 1
                }
            }
            return String(validating: decoded, as: UTF8.self)
        }
    }
}
