import Foundation
import MeasurementEvents

/// The `visitor` field of a hit: SipHash-2-4 of client address + User-Agent under a random 128-bit key
/// drawn anew each UTC day and then forgotten. Hits of one visitor on one day share the value, so unique
/// visitors per day can be counted; no address is stored, and values of different days cannot be linked.
///
/// ```swift
/// let hasher = VisitorHasher()
/// hasher.visitor(address: "203.0.113.7", userAgent: "Mozilla/5.0")   // 16 hex digits
/// ```
public final class VisitorHasher: Sendable {
    private let now: @Sendable () -> Date
    private let randomKey: @Sendable () -> (UInt64, UInt64)
    private let state = StateLock<(day: Int64, key: (UInt64, UInt64))?>(nil)

    /// Creates a hasher; tests inject the clock and the key source.
    public init(
        now: @escaping @Sendable () -> Date = Date.init,
        randomKey: @escaping @Sendable () -> (UInt64, UInt64) = {
            var generator = SystemRandomNumberGenerator()
            return (generator.next(), generator.next())
        }
    ) {
        self.now = now
        self.randomKey = randomKey
    }

    /// The day's hash of `address` and `userAgent`, as 16 lowercase hex digits.
    public func visitor(address: String, userAgent: String?) -> String {
        let day = Int64((now().timeIntervalSince1970 / 86_400).rounded(.down))
        let key = state.withLock { state in
            if let current = state, current.day == day { return current.key }
            let fresh = randomKey()
            state = (day, fresh)
            return fresh
        }
        // A 0 byte separates the two parts: no address/agent pair collides with another by shifting bytes.
        let message = Array(address.utf8) + [0] + Array((userAgent ?? "").utf8)
        let hex = String(SipHash.hash(message, key: key), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
