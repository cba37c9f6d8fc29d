/// A destination that stores events durably, attached to a bus with ``MeasurementEventBus/attach(_:options:)``.
///
/// The bus calls a sink from one delivery thread of its own, never from a poster's, and never from two
/// threads at once: ``write(_:)`` with events in post order, ``commit()`` when a batch is complete
/// (every ``SinkCommitPolicy/maximumEvents`` events, after ``SinkCommitPolicy/maximumDelay``, and on
/// ``MeasurementEventBus/flush()``), ``recordLosses(_:)`` with the events that never reached it, and
/// ``close()`` once when the bus closes. Blocking I/O is fine in all of them.
///
/// An error thrown by `write` or `commit` never reaches a poster: the bus counts the events of the
/// failed batch under ``DropReason/sinkError`` and reports them with `recordLosses` later.
public protocol EventSink: AnyObject, Sendable {
    /// How often the bus asks the sink to commit.
    var commitPolicy: SinkCommitPolicy { get }

    /// Writes events, oldest first; they count as stored once the next ``commit()`` returns.
    func write(_ events: [MeasurementEvent]) throws

    /// Makes everything written so far durable.
    func commit() throws

    /// Records events that did not reach this sink, by reason, so that reports can say what is missing.
    func recordLosses(_ losses: [DropReason: Int]) throws

    /// Releases the sink's resources; called once, after the last commit.
    func close() throws
}

/// When a sink's written events are committed: every `maximumEvents` events or `maximumDelay` after the
/// first uncommitted one, whichever comes first; a flush commits at once.
public struct SinkCommitPolicy: Sendable, Hashable {
    /// Commit once this many events are written.
    public var maximumEvents: Int
    /// Commit at most this long after the first uncommitted write, on the bus's ``EventClock`` (a clock that
    /// goes back commits at once).
    public var maximumDelay: Duration

    /// Creates a policy.
    public init(maximumEvents: Int, maximumDelay: Duration) {
        self.maximumEvents = max(1, maximumEvents)
        self.maximumDelay = maximumDelay
    }

    /// 4,096 events or 250 ms.
    public static let standard = SinkCommitPolicy(maximumEvents: 4_096, maximumDelay: .milliseconds(250))
}
