import HostedLinks
import MeasurementEvents

/// The rate limits of the write keys (docs/collector.md, "Limits"): a token bucket per key, shared by all the
/// collector's connections, counting events as the receipt's lines.
///
/// The keys are known at start, so each has its bucket made then, found by the key's position among the
/// configured keys (``AccessKeys/check(_:for:)`` finds it while it compares): a request costs one read of the
/// clock and one uncontended lock of its own key's bucket, no dictionary and no lock shared between keys.
///
/// ```swift
/// let limiter = try KeyRateLimiter(keys: keys, limits: ServerLimits(), clock: SystemEventClock(), metrics: metrics)
/// if case .refused(let seconds) = limiter.take(events: 100, key: context.writeKey) { ... 429 ... }
/// ```
final class KeyRateLimiter: Sendable {
    /// Whether a request may go on.
    enum Outcome: Sendable, Hashable {
        /// Within the key's rate: its events were taken from the bucket.
        case allowed
        /// Over it: nothing was taken; the bucket holds enough again after `retryAfter` whole seconds.
        case refused(retryAfter: Int, rate: KeyRate)
    }

    /// One key's bucket and its counters.
    private final class Bucket: Sendable {
        let rate: KeyRate
        let perMillisecond: Double
        let counters: ServerMetrics.KeyLimitCounters
        let state: StateLock<(tokens: Double, at: Int64)>

        init(rate: KeyRate, eventsPerSecond: Double, counters: ServerMetrics.KeyLimitCounters, now: Int64) {
            self.rate = rate
            perMillisecond = eventsPerSecond / 1_000
            self.counters = counters
            state = StateLock((rate.burst, now))
        }
    }

    /// By the key's position among the configured keys; nil for a key of another role or without a limit.
    private let buckets: [Bucket?]
    private let clock: any EventClock
    /// How long a refusal waits before it is answered (``ServerLimits/refusalPause``).
    let refusalPause: Duration

    /// The buckets of `keys`' write keys at `limits`' rates (a key named in ``ServerLimits/perKey``, by itself or
    /// by its fingerprint, at its own), each full; their limits are shown in `metrics`.
    /// - Throws: ``EventServerError`` (configuration) for a `per_key` entry that names no write key.
    init(keys: AccessKeys, limits: ServerLimits, clock: any EventClock, metrics: ServerMetrics) throws(EventServerError)
    {
        self.clock = clock
        refusalPause = limits.refusalPause
        let now = clock.nowMilliseconds()
        var used: Set<String> = []
        var buckets: [Bucket?] = []
        for entry in keys.entries {
            guard entry.role == .write else {
                buckets.append(nil)
                continue
            }
            let fingerprint = Self.fingerprint(of: entry.bytes)
            let text = String(decoding: entry.bytes, as: UTF8.self)
            var rate = limits.rate
            if let own = limits.perKey[text] {
                rate = own
                used.insert(text)
            } else if let own = limits.perKey[fingerprint] {
                rate = own
                used.insert(fingerprint)
            }
            let counters = metrics.keyLimit(fingerprint: fingerprint, rate: rate)
            guard let eventsPerSecond = rate.eventsPerSecond else {
                buckets.append(nil)
                continue
            }
            buckets.append(Bucket(rate: rate, eventsPerSecond: eventsPerSecond, counters: counters, now: now))
        }
        if let unknown = limits.perKey.keys.sorted().first(where: { !used.contains($0) }) {
            // Never the entry itself, which may be a key of another role: its fingerprint when it is not one.
            let shown =
                unknown.count == 12 && unknown.allSatisfy(\.isHexDigit)
                ? unknown : "the entry whose fingerprint is \(Self.fingerprint(of: Array(unknown.utf8)))"
            throw .configuration(
                "\"per_key\" in \"limits\": \(shown) names no write key (give the key itself, or its fingerprint as "
                    + "/metrics shows it: printf %s KEY | sha256sum | cut -c1-12)")
        }
        self.buckets = buckets
    }

    /// Whether the key at `key` has a rate limit (a key `"unlimited"`, or no key, has none): the collector counts
    /// a body's lines for the limit only then.
    func limits(_ key: Int?) -> Bool {
        guard let key, key < buckets.count else { return false }
        return buckets[key] != nil
    }

    /// Takes `events` from the bucket of the key at `key` (``ServerRequestContext/writeKey``), or refuses them all.
    ///
    /// A request of more events than the burst is let through when the bucket is full, and leaves it in debt: the
    /// next requests wait until the rate has paid it back. A key with no limit (or no key: `--no-auth`) is always
    /// allowed.
    func take(events: Int, key: Int?) -> Outcome {
        guard events > 0, let key, key < buckets.count, let bucket = buckets[key] else { return .allowed }
        let now = clock.nowMilliseconds()
        let burst = bucket.rate.burst
        let wanted = Double(events)
        let missing: Double? = bucket.state.withLock { state in
            let elapsed = now > state.at ? now - state.at : 0
            state.at = max(state.at, now)
            state.tokens = min(burst, state.tokens + Double(elapsed) * bucket.perMillisecond)
            let needed = min(wanted, burst)
            guard state.tokens >= needed else { return needed - state.tokens }
            state.tokens -= wanted
            return nil
        }
        guard let missing else { return .allowed }
        bucket.counters.refused(events: events)
        let seconds = (missing / (bucket.perMillisecond * 1_000)).rounded(.up)
        return .refused(retryAfter: Int(max(1, min(seconds, 86_400))), rate: bucket.rate)
    }

    /// What `/metrics` shows of a key: the first 12 hex digits of its SHA-256, as
    /// `printf %s KEY | sha256sum | cut -c1-12` prints them.
    static func fingerprint(of key: some Sequence<UInt8>) -> String {
        SHA256.digest(Array(key)).prefix(6).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
