import AppLinks
import Foundation

/// Mints the click tokens of the install path (docs/install.md): 16 random bytes, base64url without padding
/// (22 characters), from the system's cryptographically secure generator. What is one is
/// `DeferredAppLink.isClickToken(_:)`'s to say, the app's library and the collector alike.
///
/// ```swift
/// let token = ClickToken.mint()   // "3q2-7wAAAAAAAAAAAAAAAA"-like
/// ```
public enum ClickToken {
    /// The query parameter that carries a token: `alstats_click`.
    public static let parameter = DeferredAppLink.clickParameter

    /// Whether `text` is a token (`DeferredAppLink.isClickToken(_:)`).
    public static func isToken(_ text: some StringProtocol) -> Bool {
        DeferredAppLink.isClickToken(text)
    }

    /// A new token from the system's secure random numbers.
    public static func mint() -> String {
        var generator = SystemRandomNumberGenerator()
        return mint(using: &generator)
    }

    /// A new token from `generator` (a seeded one in simulations).
    public static func mint(using generator: inout some RandomNumberGenerator) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            let word: UInt64 = generator.next()
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return base64URL(bytes)
    }

    /// `bytes` in base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
