import Dispatch
import MeasurementEvents

/// Runs store work with a ``SerialQueueExecutor`` of its own preferred, so that a backend's blocking calls (the
/// SQLite store answers its `async` methods synchronously) run on its queue and never on an event-loop thread or the
/// cooperative pool; a backend that suspends (PostgreSQL over the network) gives the queue back at each suspension.
///
/// ```swift
/// let executor = StoreExecutor(label: "alstats-report")
/// let report = try await executor.run { () async throws(StoreError) in try await source.readReport(for: query) }
/// ```
final class StoreExecutor: Sendable {
    private let executor: SerialQueueExecutor

    /// An executor on a new serial queue named `label`.
    init(label: String) {
        executor = SerialQueueExecutor(label: label)
    }

    /// Runs `body` with this executor preferred: its nonisolated code, and the backend's, runs on the queue.
    func run<Result: Sendable, Failure: Error>(
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = await withTaskExecutorPreference(executor) {
            do throws(Failure) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
