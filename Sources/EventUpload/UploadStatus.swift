import Foundation
import MeasurementEvents

/// What the uploader is doing, for the host (a settings screen, a log line, a health check).
///
/// ```swift
/// let status = sink.status
/// if let pause = status.pause { print("uploads paused:", pause) }
/// print(status.pending, "events waiting; last upload", status.lastSuccess ?? .distantPast)
/// ```
public struct UploadStatus: Sendable, Hashable {
    /// Events in the outbox (or, for a push, in the database) not yet acknowledged.
    public var pending: Int = 0
    /// Events the collector acknowledged as newly stored.
    public var accepted: Int = 0
    /// Events the collector acknowledged as already stored (a retry of a request whose receipt was lost).
    public var duplicates: Int = 0
    /// Events dropped, by reason: `upload_rejected:REASON` for a line a receipt rejected, `outbox_full` for
    /// the oldest events dropped from a full outbox.
    public var dropped: [DropReason: Int] = [:]
    /// When a receipt last acknowledged a batch.
    public var lastSuccess: Date?
    /// The last failure (a network error, a status, an unreadable receipt), cleared by the next success.
    public var lastError: String?
    /// Why uploading is paused (401, 403, or another client error), `nil` while it is not.
    public var pause: UploadError?
    /// Retries of the batch being sent since its last answer.
    public var retries: Int = 0

    /// Creates an empty status.
    public init() {}

    /// Whether uploading is paused until ``HTTPEventSink/resume(writeKey:)``.
    public var isPaused: Bool { pause != nil }
}
