import MeasurementEvents

/// The time of the alert notifier (``AlertNotifier``): the wall clock its windows and episodes are dated by (an
/// `EventClock`), and its waits (between evaluations, before a retry, for a webhook's answer). Inject a manual one in
/// tests, so that they never wait for time to pass.
public protocol AlertClock: EventClock {
    /// Waits until the clock shows `deadline` (ms since the Unix epoch); returns at once when it does already.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func sleep(until deadline: Int64) async throws
}

/// The system's clock: the real time, and `Task.sleep`.
public struct SystemAlertClock: AlertClock {
    private let clock = SystemEventClock()

    /// Creates the system clock.
    public init() {}

    public func nowMilliseconds() -> Int64 { clock.nowMilliseconds() }

    public func sleep(until deadline: Int64) async throws {
        let wait = deadline - nowMilliseconds()
        if wait > 0 { try await Task.sleep(for: .milliseconds(wait)) }
    }
}
