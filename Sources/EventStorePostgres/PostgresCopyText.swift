import MeasurementEvents
import NIOCore

/// `COPY ... FROM STDIN`'s text format, as the writers send events (``PostgresEventRows``) and the
/// benchmark's `COPY` baseline sends its rows.
package enum PostgresCopyText {
    /// Writes `value` in `COPY`'s text format: backslash, tab, newline and carriage return escaped, every other
    /// byte as it is.
    package static func write(_ value: String, to text: inout ByteBuffer) {
        text.writeWithUnsafeMutableBytes(minimumWritableBytes: maximumLength(of: value)) { raw in
            guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                preconditionFailure("writeWithUnsafeMutableBytes gives room for the bytes it was asked for")
            }
            return write(value, to: out)
        }
    }

    /// The most bytes ``write(_:to:)-(_,UnsafeMutablePointer<UInt8>)`` writes for `value`: every byte escaped.
    @inline(__always)
    package static func maximumLength(of value: String) -> Int { 2 * value.utf8.count }

    /// Writes `value` escaped at `out`, which has room for ``maximumLength(of:)`` bytes.
    /// - Returns: how many bytes it wrote.
    @inline(__always)
    package static func write(_ value: String, to out: UnsafeMutablePointer<UInt8>) -> Int {
        if let written = value.utf8.withContiguousStorageIfAvailable({ write($0, to: out) }) { return written }
        var value = value
        return value.withUTF8 { write($0, to: out) }
    }

    /// Writes `bytes` escaped at `out`, which has room for twice as many.
    /// - Returns: how many bytes it wrote.
    @inline(__always)
    package static func write(_ bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        // One pass without branches (so that it vectorises) to see whether any byte may need an escape: most values
        // have none, and are copied whole.
        var suspect: UInt8 = 0
        for byte in bytes {
            suspect |= (byte < 0x0E ? 1 : 0) | (byte == UInt8(ascii: "\\") ? 1 : 0)
        }
        guard suspect != 0 else {
            out.update(from: base, count: bytes.count)
            return bytes.count
        }
        var written = 0
        for byte in bytes {
            let escape: UInt8
            switch byte {
            case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
            case UInt8(ascii: "\t"): escape = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escape = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escape = UInt8(ascii: "r")
            default:
                out[written] = byte
                written += 1
                continue
            }
            out[written] = UInt8(ascii: "\\")
            out[written + 1] = escape
            written += 2
        }
        return written
    }

    /// The most bytes ``write(_:to:)-(EventID,_)`` writes for `id`: a UUID's 36, or every byte of a text escaped.
    @inline(__always)
    package static func maximumLength(of id: EventID) -> Int {
        id.uuidValue == nil ? maximumLength(of: id.description) : 36
    }

    /// Writes `id`'s text (``EventID/description``) escaped at `out`, which has room for
    /// ``maximumLength(of:)-(EventID)`` bytes: a UUID's canonical text without making a `String` of it (it holds
    /// nothing to escape).
    /// - Returns: how many bytes it wrote.
    @inline(__always)
    package static func write(_ id: EventID, to out: UnsafeMutablePointer<UInt8>) -> Int {
        guard let (high, low) = id.uuidValue else { return write(id.description, to: out) }
        EventID.writeUUID(high: high, low: low, to: UnsafeMutableBufferPointer(start: out, count: 36))
        return 36
    }

    /// The most bytes ``write(_:to:)-(Int64,_)`` writes: a sign and 19 digits.
    package static let maximumIntegerLength = 20

    /// Writes `value` in decimal at `out`, which has room for ``maximumIntegerLength`` bytes.
    /// - Returns: how many bytes it wrote.
    @inline(__always)
    package static func write(_ value: Int64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        value.writeDecimal(to: out)
    }
}
