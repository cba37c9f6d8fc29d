import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A source of wall-clock time in milliseconds since the Unix epoch (UTC).
///
/// The bus reads it once per post, and a sink's commit deadline (``SinkCommitPolicy/maximumDelay``) runs
/// on it. Inject ``ManualEventClock`` in tests so that they never depend on the real time.
public protocol EventClock: Sendable {
    /// The current time in milliseconds since the Unix epoch (UTC).
    func nowMilliseconds() -> Int64
}

/// The system's real-time clock.
public struct SystemEventClock: EventClock {
    /// Creates the system clock.
    public init() {}

    /// The current time from `CLOCK_REALTIME`.
    public func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

/// A clock that shows a set time and moves only when told, for tests and simulations.
///
/// ```swift
/// let clock = ManualEventClock(milliseconds: 1_763_683_200_000)
/// let bus = MeasurementEventBus(clock: clock)
/// clock.advance(by: 1_000)
/// ```
public final class ManualEventClock: EventClock {
    private let now: StateLock<Int64>

    /// Creates a clock showing `milliseconds` since the Unix epoch.
    public init(milliseconds: Int64) {
        now = StateLock(milliseconds)
    }

    /// The time the clock shows.
    public func nowMilliseconds() -> Int64 {
        now.withLock { $0 }
    }

    /// Moves the clock forward (or back, with a negative value) by `milliseconds`.
    public func advance(by milliseconds: Int64) {
        now.withLock { $0 += milliseconds }
    }

    /// Sets the time the clock shows.
    public func set(milliseconds: Int64) {
        now.withLock { $0 = milliseconds }
    }
}
