/// Why an event did not reach an observer or a sink. Every drop is counted under one reason, and the
/// SQLite store persists the counts in its completeness table under ``rawValue``.
public struct DropReason: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The stable snake_case name, as stored and reported.
    public var rawValue: String

    /// Creates a reason from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a reason from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The stable name.
    public var description: String { rawValue }

    /// Orders reasons by name, for stable listings.
    public static func < (lhs: DropReason, rhs: DropReason) -> Bool { lhs.rawValue < rhs.rawValue }

    /// An observer's or sink's buffer was full (it fell behind the posters).
    public static let bufferFull: DropReason = "buffer_full"
    /// An interceptor dropped the event without naming a reason.
    public static let interceptor: DropReason = "interceptor"
    /// The event had more fields than the limit.
    public static let tooManyFields: DropReason = "too_many_fields"
    /// A field key was longer than the limit.
    public static let keyTooLong: DropReason = "key_too_long"
    /// Two field keys differed only in Unicode normalisation (`café` as U+00E9 and as `e` + U+0301).
    public static let keysDifferOnlyInNormalisation: DropReason = "keys_differ_in_normalisation"
    /// The posted values were nested deeper than the limit.
    public static let tooDeep: DropReason = "too_deep"
    /// The event name was empty.
    public static let emptyName: DropReason = "empty_name"
    /// The event was posted after the bus was closed.
    public static let busClosed: DropReason = "bus_closed"
    /// A sink failed to write or commit the event (the sink's error says why).
    public static let sinkError: DropReason = "sink_error"
    /// Not a loss of the event: it was kept, with a value cut to the length limit (counted once an event).
    /// Stores count it in completeness under the kind `truncated`.
    public static let valueTruncated: DropReason = "value_truncated"
    /// An event older than the store's retention horizon (`alstats prune`): its raw events are deleted, and one
    /// of them sent again would be counted twice, so writers refuse it. Counted under the kind `rejected`.
    public static let beforeRetention: DropReason = "before_retention"
}

/// What a slow observer's full buffer does with one more event.
public enum OverflowPolicy: Sendable, Hashable {
    /// Keep what is queued and drop the new event (the default: an observer sees an unbroken prefix of
    /// the posts, and everything after its gap is counted).
    case dropNewest
    /// Drop the oldest queued event to make room (an observer keeps the most recent events).
    case dropOldest
}

/// A snapshot of what a bus has done, for host code that wants to know nothing was lost silently.
public struct BusStatistics: Sendable, Hashable {
    /// Events given to `post`.
    public var posted: Int
    /// Events that passed the limits and interceptors and were offered to the observers.
    public var accepted: Int
    /// Values cut to the length limit (the events were kept).
    public var truncatedValues: Int
    /// Events no observer received at all (rejected, dropped by an interceptor, or posted after close), by reason.
    public var rejected: [DropReason: Int]
    /// Per observer and sink, in registration order.
    public var observers: [ObserverStatistics]

    /// Every drop counted: the bus-wide rejections plus each observer's own drops.
    public var totalDropped: Int {
        rejected.values.reduce(0, +) + observers.reduce(0) { $0 + $1.dropped.values.reduce(0, +) }
    }
}

/// What one observer or sink has received and lost.
public struct ObserverStatistics: Sendable, Hashable {
    /// The label given at registration.
    public var label: String
    /// Events handed to the observer (for a sink: written).
    public var delivered: Int
    /// Events waiting in its buffer or being delivered to it right now.
    public var buffered: Int
    /// Its buffer's capacity.
    public var capacity: Int
    /// Events it lost, by reason (``DropReason/bufferFull``, ``DropReason/sinkError``).
    public var dropped: [DropReason: Int]
}
