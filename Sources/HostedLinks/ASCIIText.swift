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
        PercentEncoding.decode(text, plusAsSpace: true)
    }
}
