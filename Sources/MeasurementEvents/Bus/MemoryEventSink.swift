import Synchronization

/// A sink that keeps committed events in memory: for tests, the benchmark, and hosts that read events back.
///
/// ```swift
/// let sink = MemoryEventSink()
/// let bus = MeasurementEventBus()
/// bus.attach(sink)
/// bus.post(EventName.navIn, fields: [FieldName.inputURL: "example://a"])
/// bus.flush()
/// sink.events.count   // 1
/// ```
public final class MemoryEventSink: EventSink {
    private struct State {
        var written: [MeasurementEvent] = []
        var writtenCount = 0
        var committed: [MeasurementEvent] = []
        var committedCount = 0
        var losses: [DropReason: Int] = [:]
        var commits = 0
        var closed = false
    }

    private let state = StateLock(State())

    /// Keep every event (`true`) or only count them (for benchmarks).
    private let keepsEvents: Bool

    /// The commit policy the bus applies.
    public let commitPolicy: SinkCommitPolicy

    /// Creates a memory sink.
    /// - Parameters:
    ///   - commitPolicy: when the bus commits; by default ``SinkCommitPolicy/standard``.
    ///   - keepsEvents: keep every event (`true`, the default) or only count them.
    public init(commitPolicy: SinkCommitPolicy = .standard, keepsEvents: Bool = true) {
        self.commitPolicy = commitPolicy
        self.keepsEvents = keepsEvents
    }

    /// The committed events, in the order they were written (empty when the sink only counts).
    public var events: [MeasurementEvent] { state.withLock { $0.committed } }

    /// How many events were committed.
    public var committedCount: Int { state.withLock { $0.committedCount } }

    /// The losses the bus reported, summed by reason.
    public var losses: [DropReason: Int] { state.withLock { $0.losses } }

    /// How many commits the bus asked for.
    public var commits: Int { state.withLock { $0.commits } }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    public func write(_ events: [MeasurementEvent]) throws {
        state.withLock { state in
            if keepsEvents { state.written.append(contentsOf: events) }
            state.writtenCount += events.count
        }
    }

    public func commit() throws {
        state.withLock { state in
            state.committed.append(contentsOf: state.written)
            state.written.removeAll(keepingCapacity: true)
            state.committedCount += state.writtenCount
            state.writtenCount = 0
            state.commits += 1
        }
    }

    public func recordLosses(_ losses: [DropReason: Int]) throws {
        state.withLock { $0.losses.merge(losses, uniquingKeysWith: +) }
    }

    public func close() throws {
        state.withLock { $0.closed = true }
    }
}
