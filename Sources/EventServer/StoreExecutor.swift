import Dispatch

/// A task executor on a serial dispatch queue of its own, so that a backend's blocking calls (the SQLite store
/// answers its `async` methods synchronously) run there and never on an event-loop thread or the cooperative
/// pool; a backend that suspends (PostgreSQL over the network) gives the queue back at each suspension.
///
/// ```swift
/// let executor = StoreExecutor(label: "alstats-report")
/// let report = try await executor.run { () async throws(StoreError) in try await source.readReport(for: query) }
/// ```
final class StoreExecutor: TaskExecutor {
    private let queue: DispatchQueue

    /// An executor on a new serial queue named `label`.
    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` with this executor preferred: its nonisolated code, and the backend's, runs on the queue.
    func run<Result: Sendable, Failure: Error>(
        _ body: () async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = await withTaskExecutorPreference(self) {
            do throws(Failure) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
