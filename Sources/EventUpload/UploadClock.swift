import Foundation

/// The uploader's time: the wall clock for its status, and the waits between retries. Inject a manual one in
/// tests so that no test sleeps.
public protocol UploadClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Waits for `duration`.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func sleep(for duration: Duration) async throws
}

extension UploadClock {
    /// The current time in milliseconds since the Unix epoch: what the uploader's tables are stamped with.
    var nowMilliseconds: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// The system clock: `Date()` and `Task.sleep`.
public struct SystemUploadClock: UploadClock {
    /// Creates the system clock.
    public init() {}

    /// The current time.
    public func now() -> Date { Date() }

    /// Sleeps for `duration`, or until the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// Where the uploader's jitter comes from: a number in `0 ..< 1` per retry. Inject a seeded one in tests.
public protocol UploadRandomSource: Sendable {
    /// A number in `0 ..< 1`.
    func nextUnit() -> Double
}

/// The system's random numbers.
public struct SystemUploadRandom: UploadRandomSource {
    /// Creates the source.
    public init() {}

    /// A number in `0 ..< 1`.
    public func nextUnit() -> Double { Double.random(in: 0..<1) }
}
