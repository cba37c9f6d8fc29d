/// Percent-encoding (RFC 3986 `%XX`) of UTF-8 text, for URLs and form values.
///
/// ```swift
/// PercentEncoding.encode("a b&c")                               // "a%20b%26c"
/// PercentEncoding.decode("a+b%26c", plusAsSpace: true)          // "a b&c"
/// PercentEncoding.decodeLeniently("100%", plusAsSpace: false)   // "100%"
/// ```
package enum PercentEncoding {
    /// Whether `byte` is an RFC 3986 unreserved character (`A-Z a-z 0-9 - . _ ~`), the bytes ``encode(_:keeping:)``
    /// keeps unless told otherwise.
    @inlinable package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The UTF-8 bytes of `text`, those that `keeping` accepts as they are, every other byte as `%XX` in
    /// upper-case hex.
    /// - Parameters:
    ///   - keeping: the bytes left raw; by default the RFC 3986 unreserved characters, so the value survives any
    ///     URL or query parser.
    package static func encode(
        _ text: some StringProtocol, keeping: (UInt8) -> Bool = PercentEncoding.isUnreserved
    ) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keeping(byte) {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "%"), HexDigits.upper[Int(byte >> 4)], HexDigits.upper[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `text` with every `%XX` (either hex case) as the byte XX, and `+` as a space when `plusAsSpace` (a form
    /// value); `nil` when a `%` is not followed by two hex digits or the bytes are not UTF-8, as Foundation's
    /// `removingPercentEncoding` answers.
    package static func decode(_ text: some StringProtocol, plusAsSpace: Bool) -> String? {
        decode(utf8: Array(text.utf8), plusAsSpace: plusAsSpace)
    }

    /// ``decode(_:plusAsSpace:)`` of text given as its bytes (a slice of a URL's query, say).
    package static func decode(utf8 bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String? {
        guard let decoded = decodedBytes(Array(bytes), plusAsSpace: plusAsSpace, keepingMalformed: false) else {
            return nil
        }
        return String(validating: decoded, as: UTF8.self)
    }

    /// One layer of percent-decoding that never fails: `%XX` (either hex case) as the byte XX, `+` as a space when
    /// `plusAsSpace`, a `%` without two hex digits kept as it is, and bytes that do not form UTF-8 as U+FFFD (as in
    /// every consumer that decodes to text).
    package static func decodeLeniently(_ text: String, plusAsSpace: Bool) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "%")) || (plusAsSpace && bytes.contains(UInt8(ascii: "+"))) else {
            return text
        }
        let decoded = decodedBytes(bytes, plusAsSpace: plusAsSpace, keepingMalformed: true) ?? bytes
        return String(decoding: decoded, as: UTF8.self)
    }

    /// `bytes` decoded; a malformed escape kept as it is when `keepingMalformed`, `nil` otherwise.
    private static func decodedBytes(_ bytes: [UInt8], plusAsSpace: Bool, keepingMalformed: Bool) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                if index + 2 < bytes.count, let high = HexDigits.value(bytes[index + 1]),
                    let low = HexDigits.value(bytes[index + 2])
                {
                    output.append(high << 4 | low)
                    index += 3
                    continue
                }
                guard keepingMalformed else { return nil }
            }
            output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return output
    }

    // MARK: Every layer, in place (the redactor's)

    /// The byte a percent escape at `index` of `bytes` stands for, however many times it was encoded (`%2522` is
    /// `"`), and the escape's length; a `%` not followed by two hex digits stands for itself (length 1).
    ///
    /// ```swift
    /// // bytes of "a%2522b": PercentEncoding.escape(in: bytes, at: 1) == (UInt8(ascii: "\""), 5)
    /// ```
    package static func escape(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (value: UInt8, length: Int) {
        guard index + 2 < bytes.count, let high = HexDigits.value(bytes[index + 1]),
            let low = HexDigits.value(bytes[index + 2])
        else {
            return (UInt8(ascii: "%"), 1)
        }
        var value = high << 4 | low
        var next = index + 3
        while value == 0x25, next + 1 < bytes.count, let high = HexDigits.value(bytes[next]),
            let low = HexDigits.value(bytes[next + 1])
        {
            value = high << 4 | low
            next += 2
        }
        return (value, next - index)
    }

    /// The first `count` bytes of `buffer` with every escape decoded, however many times it was encoded
    /// (``escape(in:at:)``), written over them: a decoded escape is shorter than the escape, so writing never
    /// overtakes reading, and nothing is allocated. Never fails: a `%` without two hex digits is kept.
    /// - Returns: the decoded length; the bytes after it are left as they were.
    package static func decodeAllLayersInPlace(_ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int) -> Int {
        let bytes = UnsafeBufferPointer(rebasing: buffer[0..<count])
        var read = bytes.firstIndex(of: UInt8(ascii: "%"), from: 0)  // the bytes before it decode to themselves
        var write = read
        while read < count {
            if bytes[read] == UInt8(ascii: "%") {
                let (value, length) = escape(in: bytes, at: read)
                buffer[write] = value
                read += length
            } else {
                buffer[write] = bytes[read]
                read += 1
            }
            write += 1
        }
        return write
    }
}
