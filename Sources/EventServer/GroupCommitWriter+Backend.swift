import Dispatch
import EventStore
import EventStoreInterface
import MeasurementEvents
import Synchronization

extension GroupCommitWriter {
    /// Writes one group commit to `backend` from the writer's own thread: the SQLite store directly (its
    /// synchronous call on the rows the requests encoded, the fast path of serve), any other backend by waiting on this thread for its
    /// `async` call, which runs on the cooperative pool and suspends on the network (the thread is the
    /// writer's own, never an event-loop or pool thread, so waiting here blocks no one else).
    /// - Throws: ``StoreError`` when the transaction could not be committed.
    static func writeBatches(
        _ queued: [QueuedEvents], losses: [DropReason: Int], to backend: any EventBackend
    ) throws(StoreError) -> [Int] {
        var encoded: [EncodedEvents] = []
        var batches: [[MeasurementEvent]] = []
        for request in queued {
            switch request {
            case .encoded(let rows): encoded.append(rows)
            case .events(let events): batches.append(events)
            }
        }
        if let sqlite = backend as? EventStore, batches.isEmpty {
            return try sqlite.writeBatches(encoded: encoded, losses: losses)
        }
        precondition(encoded.isEmpty, "rows are encoded for the SQLite store only (QueuedEvents.init)")
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

/// A request's events as the writer queues them: for the SQLite store redacted and encoded on the request's
/// task (``EventStore/encode(_:)``), so that the writer's thread only inserts; for any other backend as they
/// came (its own write redacts them).
enum QueuedEvents: Sendable {
    case encoded(EncodedEvents)
    case events([MeasurementEvent])

    /// The request's events, prepared for `backend`.
    init(_ events: [MeasurementEvent], for backend: any EventBackend) {
        if let sqlite = backend as? EventStore {
            self = .encoded(sqlite.encode(events))
        } else {
            self = .events(events)
        }
    }

    /// How many events the request holds.
    var count: Int {
        switch self {
        case .encoded(let rows): rows.count
        case .events(let events): events.count
        }
    }
}

/// The answer of a backend's write, handed from its task to the writer's thread.
private final class WriteOutcome: Sendable {
    let value = Mutex<Result<[Int], StoreError>?>(nil)
}
