import MeasurementEvents

/// A request's events as a backend prepared them for writing (``EventBackend/prepare(_:)``): the work that needs no
/// database (redaction, column values, rollup groups), done on the request's own task so that it runs on every core
/// while the backend's one writer only writes (``EventBackend/writePrepared(_:losses:)``).
public protocol PreparedEvents: Sendable {
    /// How many events were prepared.
    var count: Int { get }
}

/// Events prepared by doing nothing to them: what ``EventBackend/prepare(_:)`` gives for a backend whose write does
/// all the work itself (it redacts what it writes).
public struct UnpreparedEvents: PreparedEvents {
    /// The events, as the request sent them.
    public var events: [MeasurementEvent]

    /// Events to be written as they are.
    public init(_ events: [MeasurementEvent]) {
        self.events = events
    }

    /// How many events there are.
    public var count: Int { events.count }
}
