import EventStoreInterface
import MeasurementEvents

/// Where the collector routes and the hit recorder hand their events: the application's one writer
/// (``GroupCommitWriter``), whatever backend it writes to.
public protocol EventSubmitting: Sendable {
    /// Whether the writer takes submissions and its last commit (if any) succeeded.
    var isHealthy: Bool { get }

    /// Stores `events` (and adds `losses` to completeness) with the next group commit and returns, once it is
    /// committed, how many of the events were newly stored (the others were duplicates).
    /// - Throws: ``EventSubmitError``: overloaded (queue full), closed, or the store's failure.
    func submit(_ events: consuming [MeasurementEvent], losses: [DropReason: Int]) async throws(EventSubmitError)
        -> Int

    /// ``submit(_:losses:)`` of a request's decoded `events` (each at its place in `positions`) and of its `lines`
    /// read in place, which take the other places; the count covers both.
    func submit(
        _ events: consuming [MeasurementEvent], positions: [Int32], lines: ScannedLines, losses: [DropReason: Int]
    ) async throws(EventSubmitError) -> Int
}

extension EventSubmitting {
    /// Decodes `lines` and submits them with `events`, in the request's order.
    public func submit(
        _ events: consuming [MeasurementEvent], positions: [Int32], lines: ScannedLines, losses: [DropReason: Int]
    ) async throws(EventSubmitError) -> Int {
        try await submit(lines.merged(with: events, positions: positions), losses: losses)
    }
}

/// Why a submission was not stored (``EventSubmitting/submit(_:losses:)``).
public enum EventSubmitError: Error, Sendable, Hashable {
    /// The queue is full: answer 503 with `Retry-After`.
    case overloaded
    /// The writer is shutting down or stopped.
    case closed
    /// The commit failed; the message says why (from `StoreError`).
    case storeFailed(String)
}

/// A writer whose backend encodes a request's lines read in place as the request reads them (``FlatLineEncoding``).
package protocol FlatLineEncoderSource {
    /// A new encoder for one request's lines, or `nil` when the backend has none (it encodes them when submitted).
    func makeFlatLineEncoder() -> (any FlatLineEncoder)?
}
