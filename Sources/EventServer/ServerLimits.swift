import MeasurementEvents

/// What one slow or greedy client may take of the collector (docs/collector.md, "Limits"): the `limits` object of
/// `alstats serve --config FILE`.
///
/// ```json
/// {"limits": {"header_timeout": "10s", "body_timeout": "30s", "idle_timeout": "60s", "max_connections": 4096,
///             "events_per_second_per_key": 10000, "burst_per_key": 50000,
///             "per_key": {"wk_backend": {"events_per_second": 50000, "burst": 250000},
///                         "3f2a9c0d41b7": {"events_per_second": "unlimited"}}}}
/// ```
public struct ServerLimits: Sendable, Hashable {
    /// The time a connection has to send a whole request head, from its first byte (or from the connection's
    /// opening): past it, the connection is closed, after a 408 when a request line was read.
    public var headerTimeout: Duration = .seconds(10)
    /// The time a request has to send its whole body, from the end of its head: past it, 408 and the connection is
    /// closed; nothing of the body is stored.
    public var bodyTimeout: Duration = .seconds(30)
    /// The time a keep-alive connection may wait with no request in flight before it is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// The most connections open at once; a further one is accepted and closed at once.
    public var maxConnections: Int = 4096
    /// Every write key's rate, unless ``perKey`` names it.
    public var rate: KeyRate = KeyRate(eventsPerSecond: 10_000, burst: 50_000)
    /// How long a 429 waits before it is sent, at most its `Retry-After`: a client retrying in a loop without
    /// waiting gets two answers a second per connection instead of thousands, each of which would cost the
    /// collector a body to read. Not in the config file: a property for tests, which set it to zero.
    public var refusalPause: Duration = .milliseconds(500)
    /// Other rates for some keys, by the key itself or by its fingerprint (``KeyRateLimiter/fingerprint(of:)``,
    /// what `/metrics` shows).
    public var perKey: [String: KeyRate] = [:]

    /// The defaults of docs/collector.md.
    public init() {}

    /// The limits of a config file's `limits` member (the defaults for what it leaves out).
    /// - Throws: ``EventServerError`` (configuration) naming the member and what it must be.
    public init(json: JSONValue?, path: String) throws(EventServerError) {
        guard let json, json != .null else { return }
        guard case .object(let object) = json else {
            throw .configuration(#""limits" in \#(path) must be an object such as {"max_connections": 4096}"#)
        }
        let known: Set = [
            "header_timeout", "body_timeout", "idle_timeout", "max_connections", "events_per_second_per_key",
            "burst_per_key", "per_key",
        ]
        for member in object where !known.contains(member.key) {
            throw .configuration(
                "\"limits\" in \(path) has an unknown member \"\(member.key)\": it takes "
                    + known.sorted().joined(separator: ", "))
        }
        let place = "in \"limits\" of \(path)"
        if let value = object["header_timeout"] { headerTimeout = try Self.duration(value, "header_timeout", place) }
        if let value = object["body_timeout"] { bodyTimeout = try Self.duration(value, "body_timeout", place) }
        if let value = object["idle_timeout"] { idleTimeout = try Self.duration(value, "idle_timeout", place) }
        if let value = object["max_connections"] {
            guard let count = value.intValue, count >= 1, count <= 1_000_000 else {
                throw .configuration("\"max_connections\" \(place) must be a whole number from 1 to 1000000")
            }
            maxConnections = count
        }
        rate = try KeyRate(
            rate: object["events_per_second_per_key"], burst: object["burst_per_key"], default: rate,
            names: ("events_per_second_per_key", "burst_per_key"), place)
        if let value = object["per_key"], value != .null {
            guard case .object(let keys) = value else {
                throw .configuration(
                    #""per_key" \#(place) must be an object such as {"KEY": {"events_per_second": 50000}}"#)
            }
            for entry in keys {
                guard case .object(let members) = entry.value else {
                    throw .configuration(
                        "\"per_key\" \(place): each key's entry must be an object with events_per_second and/or burst")
                }
                for member in members where member.key != "events_per_second" && member.key != "burst" {
                    throw .configuration(
                        "\"per_key\" \(place): unknown member \"\(member.key)\" (events_per_second, burst)")
                }
                perKey[entry.key] = try KeyRate(
                    rate: members["events_per_second"], burst: members["burst"], default: rate,
                    names: ("events_per_second", "burst"), "in \"per_key\" \(place)")
            }
        }
    }

    /// A duration written as `90s`, `15m`, `1h`, `500ms` or a number of seconds, from 1 ms to 24 h.
    static func duration(_ value: JSONValue, _ name: String, _ place: String) throws(EventServerError) -> Duration {
        let problem = EventServerError.configuration(
            "\"\(name)\" \(place) must be a duration such as \"10s\", \"90s\", \"15m\" or \"500ms\" (1ms to 24h)")
        var milliseconds: Double
        switch value {
        case .int(let seconds): milliseconds = Double(seconds) * 1_000
        case .double(let seconds): milliseconds = seconds * 1_000
        case .string(let text):
            guard let parsed = parseDuration(text) else { throw problem }
            milliseconds = parsed
        default: throw problem
        }
        guard milliseconds >= 1, milliseconds <= 86_400_000 else { throw problem }
        milliseconds.round()
        return .milliseconds(Int64(milliseconds))
    }

    /// The milliseconds of `90s`, `15m`, `1h`, `500ms` (a decimal number and a unit), nil when it is not one.
    static func parseDuration(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000)]
        for (unit, scale) in units where text.hasSuffix(unit) {
            let number = text.dropLast(unit.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let value = Double(number)
            else { continue }
            return value * scale
        }
        return nil
    }
}

/// One write key's token bucket: `eventsPerSecond` refill and `burst` room, in events (a body's lines);
/// nil `eventsPerSecond` for no limit.
public struct KeyRate: Sendable, Hashable {
    /// The events a second the bucket refills; nil: unlimited.
    public var eventsPerSecond: Double?
    /// The bucket's size: the most events let through at once after a quiet time.
    public var burst: Double

    /// A rate of `eventsPerSecond` (nil: unlimited) with room for `burst` events.
    public init(eventsPerSecond: Double?, burst: Double) {
        self.eventsPerSecond = eventsPerSecond
        self.burst = burst
    }

    /// No limit.
    public static let unlimited = KeyRate(eventsPerSecond: nil, burst: 0)

    /// A rate read from a config's members: a number of events a second or `"unlimited"` (absent: `fallback`'s),
    /// and a burst (absent: five seconds of the rate when the rate is given, else `fallback`'s).
    init(
        rate: JSONValue?, burst: JSONValue?, default fallback: KeyRate, names: (rate: String, burst: String),
        _ place: String
    ) throws(EventServerError) {
        var eventsPerSecond = fallback.eventsPerSecond
        var room = fallback.burst
        switch rate {
        case nil, .null?: break
        case .string("unlimited")?:
            eventsPerSecond = nil
        case let value?:
            guard let number = value.numberValue, number > 0, number <= 1e9 else {
                throw .configuration(
                    "\"\(names.rate)\" \(place) must be a number of events a second above 0, or \"unlimited\"")
            }
            eventsPerSecond = number
            room = number * 5
        }
        if let burst, burst != .null {
            guard let number = burst.numberValue, number >= 1, number <= 1e10 else {
                throw .configuration("\"\(names.burst)\" \(place) must be a number of events, at least 1")
            }
            room = number
        }
        self.init(eventsPerSecond: eventsPerSecond, burst: max(room, 1))
    }
}

extension JSONValue {
    /// The value of a JSON integer, nil for anything else.
    fileprivate var intValue: Int? {
        if case .int(let value) = self { return Int(value) }
        return nil
    }

    /// The value of a JSON number, nil for anything else.
    fileprivate var numberValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }
}
