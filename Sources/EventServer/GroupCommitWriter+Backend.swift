import Dispatch
import EventStore
import MeasurementEvents
import Synchronization

extension GroupCommitWriter {
    /// Writes one group commit to `backend` from the writer's own thread: the SQLite store directly (its
    /// synchronous call, the fast path of today's serve), any other backend by waiting on this thread for its
    /// `async` call, which runs on the cooperative pool and suspends on the network (the thread is the
    /// writer's own, never an event-loop or pool thread, so waiting here blocks no one else).
    /// - Throws: ``StoreError`` when the transaction could not be committed.
    static func writeBatches(
        _ batches: [[MeasurementEvent]], losses: [DropReason: Int], to backend: any EventBackend
    ) throws(StoreError) -> [Int] {
        if let sqlite = backend as? EventStore {
            return try sqlite.writeBatches(batches, losses: losses)
        }
        let outcome = WriteOutcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<[Int], StoreError>
            do throws(StoreError) {
                result = .success(try await backend.writeBatches(batches, losses: losses))
            } catch {
                result = .failure(error)
            }
            outcome.value.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        // The task stored its outcome before it signalled.
        let result = outcome.value.withLock { $0 }
        return try (result ?? .failure(StoreError(.io, path: backend.location, "the write ended without an answer")))
            .get()
    }
}

/// The answer of a backend's write, handed from its task to the writer's thread.
private final class WriteOutcome: Sendable {
    let value = Mutex<Result<[Int], StoreError>?>(nil)
}
