import Hummingbird
import Logging
import MeasurementEvents
import NIOCore

/// The request context of the alstats server: Hummingbird's core context plus what the handler tells the
/// request log (how many events the request brought), shared by reference between middleware and handler.
public struct ServerRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The events counted by the handler, for the log line.
    let tally: RequestTally
    /// The client's socket address (a hosted link hit's visitor hash reads it; it is never stored).
    public let remoteAddress: SocketAddress?
    /// The position of the request's key among the configured keys (``AccessKeys/entries``), set by the access
    /// check: the collector's rate limit finds the key's bucket by it. Nil before the check and with `--no-auth`.
    var writeKey: Int?

    /// A context for one request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        tally = RequestTally()
        remoteAddress = source.channel.remoteAddress
    }

    /// Bodies are read by the collector's own limits (512 KiB sent), not by decoding.
    public var maxUploadSize: Int { IntakeLimits.maximumSentBytes }
}

/// The number of events a request brought, set by its handler and read by the request log.
final class RequestTally: Sendable {
    private let value = StateLock<Int?>(nil)

    /// Records the events of the request.
    func set(events: Int) { value.withLock { $0 = events } }

    /// The events recorded, nil for a request that carries none.
    var events: Int? { value.withLock { $0 } }
}
