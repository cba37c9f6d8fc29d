import Foundation
import MeasurementEvents

/// A sink that sends the bus's events to a collector (`alstats serve`, or anything that speaks
/// `POST /v1/events`), at least once, through a durable SQLite outbox (docs/upload.md).
///
/// The bus's delivery thread writes every event to the outbox and commits it: that is all that happens on its
/// way. The host runs ``run()`` (for example in a task it owns, or a `ServiceGroup`), which uploads in the
/// background whenever events are committed: batches of at most 500 events and 512 KiB, gzip, the write key
/// as HTTP Basic user name, the next batch only after the receipt. An event leaves the outbox only when a
/// receipt acknowledged it (accepted or duplicate) or rejected it (counted as `upload_rejected:REASON`), or
/// when the outbox is over ``Configuration/maximumOutboxBytes`` (the oldest, counted as `outbox_full`).
/// Every count is also added to the database's completeness table.
///
/// ```swift
/// let sink = try HTTPEventSink(.init(collector: URL(string: "https://stats.example.com")!, writeKey: key,
///                                    outboxPath: outboxPath))
/// // On Linux, with the transport of EventUploadHTTPClient:
/// // let sink = try HTTPEventSink(configuration, transport: AsyncHTTPClientUploadTransport())
/// MeasurementEventBus.shared.attach(sink)
/// let uploads = Task { await sink.run() }   // cancel it to stop uploading
/// ```
public final class HTTPEventSink: EventSink, Sendable {
    /// Where events go and how they are kept until then.
    public struct Configuration: Sendable {
        /// The collector: a base URL (`https://stats.example.com`, to which `/v1/events` is added) or the full
        /// URL of its events endpoint.
        public var collector: URL
        /// The write key, sent as the HTTP Basic user name.
        public var writeKey: String
        /// The outbox's SQLite file (created and migrated when needed); it may be the app's alstats store.
        /// The uploader's tables in it (`upload_outbox`, `upload_loss_counts`, …) are its own, migrated by the
        /// sink (`Migrations/upload/`, recorded in `upload_schema_migrations`).
        public var outboxPath: String
        /// The most bytes of NDJSON the outbox keeps (64 MiB by default); beyond, the oldest events are dropped.
        public var maximumOutboxBytes: Int
        /// Batching, backoff, give-up time.
        public var policy: UploadPolicy
        /// When the bus commits to the outbox (1,000 events or 250 ms by default).
        public var commitPolicy: SinkCommitPolicy
        /// How the outbox keeps events: the redactor applied before an event is kept, the durability of a
        /// commit, the busy timeout.
        public var outboxOptions: OutboxOptions

        /// Creates a configuration.
        /// - Parameters:
        ///   - collector: the collector's base URL, or the full URL of its events endpoint.
        ///   - writeKey: the write key, sent as the HTTP Basic user name.
        ///   - outboxPath: the outbox's SQLite file, created and migrated when needed.
        ///   - maximumOutboxBytes: the most bytes of NDJSON the outbox keeps; beyond, the oldest are dropped.
        ///   - policy: batching, backoff, give-up time.
        ///   - commitPolicy: when the bus commits to the outbox.
        ///   - outboxOptions: redaction, durability and busy timeout of the outbox.
        public init(
            collector: URL, writeKey: String, outboxPath: String, maximumOutboxBytes: Int = 64 << 20,
            policy: UploadPolicy = UploadPolicy(),
            commitPolicy: SinkCommitPolicy = SinkCommitPolicy(maximumEvents: 1_000, maximumDelay: .milliseconds(250)),
            outboxOptions: OutboxOptions = OutboxOptions()
        ) {
            self.collector = collector
            self.writeKey = writeKey
            self.outboxPath = outboxPath
            self.maximumOutboxBytes = maximumOutboxBytes
            self.policy = policy
            self.commitPolicy = commitPolicy
            self.outboxOptions = outboxOptions
        }
    }

    /// The reason under which the oldest events of a full outbox are counted.
    public static let outboxFull: DropReason = "outbox_full"

    /// When the bus commits to the outbox.
    public let commitPolicy: SinkCommitPolicy
    private let outbox: UploadOutbox
    private let uploader: Uploader
    private let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    /// Opens the outbox (events a previous process left in it are uploaded by the next ``run()`` or
    /// ``upload()``). Nothing is sent until the host calls one of them.
    /// - Parameters:
    ///   - configuration: the collector, the key, the outbox.
    ///   - transport: how requests are sent: `AsyncHTTPClientUploadTransport` on Linux; on Apple platforms the
    ///     initializer without it sends with `URLSession`.
    ///   - clock: the time of the status and of the retry waits.
    ///   - random: the jitter of the retry waits.
    /// - Throws: ``UploadError`` with kind ``UploadError/Kind/store`` when the outbox cannot be opened.
    public init(
        _ configuration: Configuration, transport: any UploadTransport, clock: any UploadClock = SystemUploadClock(),
        random: any UploadRandomSource = SystemUploadRandom()
    ) throws(UploadError) {
        commitPolicy = configuration.commitPolicy
        do {
            outbox = try UploadOutbox(
                path: configuration.outboxPath, maximumBytes: configuration.maximumOutboxBytes,
                options: configuration.outboxOptions, clock: clock)
        } catch {
            throw UploadError(error)
        }
        uploader = Uploader(
            endpoint: configuration.collector, writeKey: configuration.writeKey, policy: configuration.policy,
            transport: transport, clock: clock, random: random)
        (wakeUps, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    #if ALSTATS_URLSESSION || !Server
    /// Opens the outbox, to send with `URLSession` (Apple platforms): as ``init(_:transport:clock:random:)``.
    /// - Throws: ``UploadError`` with kind ``UploadError/Kind/store`` when the outbox cannot be opened.
    public convenience init(
        _ configuration: Configuration, clock: any UploadClock = SystemUploadClock(),
        random: any UploadRandomSource = SystemUploadRandom()
    ) throws(UploadError) {
        try self.init(configuration, transport: URLSessionUploadTransport(), clock: clock, random: random)
    }
    #endif

    // MARK: EventSink (called by the bus's delivery thread)

    /// Appends the events to the outbox's open transaction.
    public func write(_ events: [MeasurementEvent]) throws {
        try outbox.append(events)
    }

    /// Commits the outbox (dropping its oldest events when over its bound) and wakes the uploader.
    public func commit() throws {
        try commitCounting()
        wake.yield()
    }

    /// Records the bus's losses in the outbox database's completeness table and, in the same transaction,
    /// for the collector (sent as ``DeviceLoss`` records with the next batch), and wakes the uploader.
    public func recordLosses(_ losses: [DropReason: Int]) throws {
        try commitCounting(losses: losses)
        wake.yield()
    }

    /// Commits what is pending and ends ``run()``; events left in the outbox wait for the next process.
    public func close() throws {
        defer { wake.finish() }
        try outbox.close()
    }

    private func commitCounting(losses: [DropReason: Int] = [:]) throws {
        let evicted = try outbox.commit(losses: losses)
        if evicted > 0 { uploader.updateStatus { $0.dropped[HTTPEventSink.outboxFull, default: 0] += evicted } }
    }

    // MARK: Host control

    /// Uploads in the background until the task running it is cancelled or the sink is closed: at once
    /// (events a previous process left), then after every commit. Failures are retried as
    /// ``UploadPolicy`` says and shown in ``status``; a pause (401, 403) waits for ``resume(writeKey:)``.
    public func run() async {
        wake.yield()
        for await _ in wakeUps {
            do {
                try await upload()
            } catch  where error.kind == .cancelled {
                return
            } catch {
                continue  // in the status; the next commit or resume tries again
            }
        }
    }

    /// Uploads until the outbox is empty.
    /// - Throws: ``UploadError``: paused (refused key, another client error), unreachable for longer than
    ///   ``UploadPolicy/giveUpAfter``, a failing outbox, or cancelled. Nothing unacknowledged is deleted.
    public func upload() async throws(UploadError) {
        try await uploader.drain(outbox)
    }

    /// What the uploader is doing: pending events, last success, last error, pause, drop counts.
    public var status: UploadStatus {
        var status = uploader.status
        if let pending = try? outbox.pendingCount() { status.pending = pending }
        return status
    }

    /// Ends a pause (after a 401 or 403), with a new write key when one is given, and wakes ``run()``.
    public func resume(writeKey: String? = nil) {
        uploader.resume(writeKey: writeKey)
        wake.yield()
    }
}
