/// How events are batched and retried on their way to the collector (docs/upload.md).
///
/// ```swift
/// var policy = UploadPolicy()
/// policy.giveUpAfter = .seconds(30)   // upload() throws .unreachable after 30 s of failed retries
/// ```
public struct UploadPolicy: Sendable, Hashable {
    /// The most events in one request (500, the collector's and Segment's batch size).
    public var maximumBatchEvents: Int
    /// The most bytes of NDJSON in one request before compression (512 KiB, the collector's limit as sent).
    /// One event longer than this is never sent: it is dropped and counted as `upload_rejected:too_large`.
    public var maximumBatchBytes: Int
    /// The ceiling of the first retry's delay; each later retry doubles it (full jitter picks a delay between
    /// zero and the ceiling).
    public var initialBackoff: Duration
    /// The most the ceiling grows to (5 minutes).
    public var maximumBackoff: Duration
    /// The longest `Retry-After` obeyed (1 hour); a longer one is cut to this.
    public var maximumRetryAfter: Duration
    /// When the collector stays unreachable for longer than this, ``HTTPEventSink/upload()`` and a push stop
    /// with ``UploadError/Kind/unreachable``; `nil` retries for ever (the background ``HTTPEventSink/run()``).
    public var giveUpAfter: Duration?
    /// The time one request may take, from sending to the end of the receipt (15 s): a request with no answer by
    /// then is retried like a dropped connection. A 500-event batch is about 60 KB of gzip, so 15 s still allows
    /// about 32 kbit/s; a collector that commits in milliseconds answers long before.
    public var requestTimeout: Duration

    /// Creates a policy; the defaults are those of docs/upload.md.
    public init(
        maximumBatchEvents: Int = 500, maximumBatchBytes: Int = 512 * 1024, initialBackoff: Duration = .seconds(1),
        maximumBackoff: Duration = .seconds(300), maximumRetryAfter: Duration = .seconds(3600),
        giveUpAfter: Duration? = nil, requestTimeout: Duration = .seconds(15)
    ) {
        self.maximumBatchEvents = min(max(1, maximumBatchEvents), 500)
        self.maximumBatchBytes = min(max(1, maximumBatchBytes), 512 * 1024)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumRetryAfter = maximumRetryAfter
        self.giveUpAfter = giveUpAfter
        self.requestTimeout = requestTimeout
    }
}
