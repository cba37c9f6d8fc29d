import NIOCore

/// `COPY ... FROM STDIN`'s text format, as the writers send events (``PostgresWritePlan/copyRows()``) and the
/// benchmark's `COPY` baseline sends its rows.
package enum PostgresCopyText {
    /// Writes `value` in `COPY`'s text format: backslash, tab, newline and carriage return escaped, every other
    /// byte as it is.
    package static func write(_ value: String, to text: inout ByteBuffer) {
        var value = value
        value.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let escape: UInt8
                switch bytes[index] {
                case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
                case UInt8(ascii: "\t"): escape = UInt8(ascii: "t")
                case UInt8(ascii: "\n"): escape = UInt8(ascii: "n")
                case UInt8(ascii: "\r"): escape = UInt8(ascii: "r")
                default: continue
                }
                text.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index]))
                text.writeInteger(UInt8(ascii: "\\"))
                text.writeInteger(escape)
                start = index + 1
            }
            text.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
        }
    }
}
