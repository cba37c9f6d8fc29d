import Foundation

/// Exponential backoff with full jitter, honouring `Retry-After`.
///
/// Retry number `attempt` (0 for the first retry) waits a uniformly random time between zero and its
/// ceiling, `initial × 2^attempt` capped at `maximum` (1 s, 2 s, 4 s, … 5 min by default). A `Retry-After`
/// from the collector is a floor: the wait is never shorter than it asked (up to `maximumRetryAfter`), and
/// keeps its jitter above it so that clients told the same time do not all come back at once.
///
/// ```swift
/// let schedule = RetrySchedule(policy: UploadPolicy())
/// schedule.ceiling(attempt: 3)                                   // 8 s
/// schedule.delay(attempt: 3, retryAfter: nil, unit: 0.5)         // 4 s
/// ```
public struct RetrySchedule: Sendable, Hashable {
    /// The first retry's ceiling.
    public var initial: Duration
    /// The most a ceiling grows to.
    public var maximum: Duration
    /// The longest `Retry-After` obeyed.
    public var maximumRetryAfter: Duration

    /// The schedule of `policy`.
    public init(policy: UploadPolicy) {
        initial = policy.initialBackoff
        maximum = policy.maximumBackoff
        maximumRetryAfter = policy.maximumRetryAfter
    }

    /// The ceiling of retry number `attempt` (0-based): `initial × 2^attempt`, at most `maximum`.
    public func ceiling(attempt: Int) -> Duration {
        var ceiling = initial
        for _ in 0..<min(max(0, attempt), 62) {
            ceiling *= 2
            if ceiling >= maximum { return maximum }
        }
        return min(ceiling, maximum)
    }

    /// The wait before retry number `attempt`.
    /// - Parameters:
    ///   - attempt: 0 for the first retry of a batch.
    ///   - retryAfter: what the collector's `Retry-After` asked for, if anything.
    ///   - unit: a random number in `0 ..< 1`.
    public func delay(attempt: Int, retryAfter: Duration?, unit: Double) -> Duration {
        let jitter = ceiling(attempt: attempt) * min(max(unit, 0), 1)
        guard let retryAfter else { return jitter }
        return max(min(retryAfter, maximumRetryAfter), jitter)
    }

    /// The wait a `Retry-After` header value asks for: delta-seconds (`120`) or an HTTP date
    /// (`Wed, 21 Oct 2026 07:28:00 GMT`, measured from `now`); `nil` for a value that is neither.
    public static func retryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text) { return seconds >= 0 ? .seconds(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }
}
