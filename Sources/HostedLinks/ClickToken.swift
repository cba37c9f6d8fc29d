import AppLinks

/// Mints the click tokens of the install path (docs/install.md): 16 bytes, base64url without padding (22
/// characters). The first 6 bytes are the time of the minting in ms since the Unix epoch, big-endian, and the other 10
/// come from the system's cryptographically secure generator: 80 random bits no one can guess, and tokens that sort
/// by time, so that a store appends them at the end of its index instead of rewriting pages all over it (a person's
/// every page view mints one; UUIDv7 event ids are time-ordered for the same reason). What is one is
/// `DeferredAppLink.isClickToken(_:)`'s to say, the app's library and the collector alike.
///
/// ```swift
/// let token = ClickToken.mint(at: clock.nowMilliseconds())   // "AZrsYAcAq0-Hk1b2cPj-rA"-like
/// ```
public enum ClickToken {
    /// The query parameter that carries a token: `alstats_click`.
    public static let parameter = DeferredAppLink.clickParameter

    /// Whether `text` is a token (`DeferredAppLink.isClickToken(_:)`).
    public static func isToken(_ text: some StringProtocol) -> Bool {
        DeferredAppLink.isClickToken(text)
    }

    /// A new token minted at `milliseconds` (since the Unix epoch), its random part from the system's secure random
    /// numbers.
    public static func mint(at milliseconds: Int64) -> String {
        var generator = SystemRandomNumberGenerator()
        return mint(at: milliseconds, using: &generator)
    }

    /// A new token minted at `milliseconds`, its random part from `generator` (a seeded one in simulations).
    public static func mint(at milliseconds: Int64, using generator: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        let time = UInt64(clamping: max(0, milliseconds))
        for shift in stride(from: 40, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: time >> shift)) }
        let high: UInt64 = generator.next()
        let low: UInt64 = generator.next()
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: high >> shift)) }
        for shift in stride(from: 56, through: 48, by: -8) { bytes.append(UInt8(truncatingIfNeeded: low >> shift)) }
        return base64URL(bytes)
    }

    /// `bytes` in base64url without padding (RFC 4648, section 5): every page view of a person mints one, so it is
    /// written here, without Foundation's encoder and two replacements.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group: UInt32 = 0
            for offset in 0..<3 { group = group << 8 | UInt32(offset < count ? bytes[index + offset] : 0) }
            for position in 0...count { output.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 63)]) }
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The base64url alphabet.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
}
