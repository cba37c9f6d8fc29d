/// Hexadecimal digits as ASCII bytes, both ways: for percent escapes, JSON `\u` escapes and the like.
///
/// ```swift
/// HexDigits.upper[0xA]               // UInt8(ascii: "A")
/// HexDigits.value(UInt8(ascii: "f"))   // 15
/// ```
package enum HexDigits {
    /// `0-9 A-F`, indexed by the digit's value.
    package static let upper: [UInt8] = Array("0123456789ABCDEF".utf8)
    /// `0-9 a-f`, indexed by the digit's value.
    package static let lower: [UInt8] = Array("0123456789abcdef".utf8)

    /// The value of the hex digit `byte` in either case, or `nil` when it is not one.
    @inlinable @inline(__always) package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
