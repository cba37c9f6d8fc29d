import Foundation
import MeasurementEvents

/// Sends the events of a local alstats database that a collector has not acknowledged yet (`alstats push`),
/// with the batching, retries and receipts of ``HTTPEventSink``. The cursor of what each collector answered
/// is kept in the database, so a push that is killed or fails resumes where it stopped and never sends an
/// answered event again. The events are read through a ``PushLineSource``: this module knows no store.
///
/// ```swift
/// let lines = try StoreEventLines(path: "alstats.sqlite")   // SQLiteEventStore's reader, a PushLineSource
/// let pusher = try EventPusher(source: lines, collector: URL(string: "https://stats.example.com")!,
///                              writeKey: key, policy: UploadPolicy(giveUpAfter: .seconds(300)),
///                              transport: AsyncHTTPClientUploadTransport())  // on Linux; URLSession by default elsewhere
/// try await pusher.push { status in print(status.pending, "left") }
/// ```
public final class EventPusher: Sendable {
    private let source: PushSource
    private let uploader: Uploader
    private let batchesInFlight: Int

    /// Opens the database of `source` (it must exist) for a push to `collector`.
    /// - Parameters:
    ///   - source: the events to send, oldest first; the cursor is kept in the file at its ``PushLineSource/path``.
    ///   - batchesInFlight: how many requests may wait for their receipts at once (12 by default; at least 1).
    ///     The cursor moves only past a contiguous run of acknowledged batches, so a push stopped at any point
    ///     and run again sends again at most `batchesInFlight + 1` batches; the collector's id dedup makes those
    ///     events duplicates, never copies.
    ///   - transport: how requests are sent: `AsyncHTTPClientUploadTransport` on Linux; on Apple platforms the
    ///     initializer without it sends with `URLSession`.
    /// - Throws: ``UploadError`` with kind ``UploadError/Kind/store`` when the database cannot be used.
    public init(
        source lines: any PushLineSource, collector: URL, writeKey: String, policy: UploadPolicy = UploadPolicy(),
        batchesInFlight: Int = 12, transport: any UploadTransport, clock: any UploadClock = SystemUploadClock(),
        random: any UploadRandomSource = SystemUploadRandom()
    ) throws(UploadError) {
        self.batchesInFlight = max(1, batchesInFlight)
        uploader = Uploader(
            endpoint: collector, writeKey: writeKey, policy: policy, transport: transport, clock: clock,
            random: random)
        do {
            source = try PushSource(lines: lines, destination: uploader.endpoint.absoluteString, clock: clock)
        } catch {
            throw UploadError(error)
        }
    }

    #if ALSTATS_URLSESSION || !Server
    /// Opens the database of `source` for a push that sends with `URLSession` (Apple platforms): as
    /// ``init(source:collector:writeKey:policy:batchesInFlight:transport:clock:random:)``.
    /// - Throws: ``UploadError`` with kind ``UploadError/Kind/store`` when the database cannot be used.
    public convenience init(
        source lines: any PushLineSource, collector: URL, writeKey: String, policy: UploadPolicy = UploadPolicy(),
        batchesInFlight: Int = 12, clock: any UploadClock = SystemUploadClock(),
        random: any UploadRandomSource = SystemUploadRandom()
    ) throws(UploadError) {
        try self.init(
            source: lines, collector: collector, writeKey: writeKey, policy: policy,
            batchesInFlight: batchesInFlight,
            transport: URLSessionUploadTransport(), clock: clock, random: random)
    }
    #endif

    /// Sends every event not yet answered, oldest first, until none is left.
    /// - Parameter progress: called after every receipt with the status (pending = events left).
    /// - Throws: ``UploadError``: ``UploadError/Kind/refused(status:)`` for a refused key,
    ///   ``UploadError/Kind/unreachable`` after ``UploadPolicy/giveUpAfter`` of failures, and the others.
    public func push(progress: (@Sendable (UploadStatus) -> Void)? = nil) async throws(UploadError) {
        try await uploader.drain(source, batchesInFlight: batchesInFlight, progress: progress)
    }

    /// The status: pending events, receipts' counts, drops, the last error.
    public var status: UploadStatus {
        var status = uploader.status
        if let pending = try? source.pendingCount() { status.pending = pending }
        return status
    }

    /// The lines this collector's receipts rejected over every push of this database, by reason.
    public func rejectedLines() throws(UploadError) -> [DropReason: Int] {
        do {
            return try source.losses()
        } catch {
            throw UploadError(error)
        }
    }
}
