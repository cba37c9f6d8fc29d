import EventStoreInterface
import Logging
import MeasurementEvents
import ServiceLifecycle

/// Records the hits of hosted link pages off the response path (docs/hosted-links.md, "Serve it"): a page handler hands
/// its `alstats_link_hit` event over without waiting, and this service sends what has gathered to the
/// group-commit writer every ``interval``. A hit that cannot be kept is counted, never a slower page:
/// a full buffer counts `buffer_full`, a batch the writer refuses (queue full, closed, failed commit)
/// `sink_error`; the counts go to the store's completeness with the next batch.
///
/// Run as a `Service` after the writer in the same group (so that at shutdown it stops first and hands
/// its last hits to the writer, which then commits them).
public final class LinkHitRecorder: Service, Sendable {
    /// The most hits held between two sends; more are counted as lost.
    public let capacity: Int
    /// How long hits gather before they are sent.
    public let interval: Duration
    private let writer: any EventSubmitting
    private let logger: Logger
    private let state = StateLock(State())

    private struct State {
        var hits: [MeasurementEvent] = []
        var losses: [DropReason: Int] = [:]
    }

    /// A recorder sending to `writer`, holding at most `capacity` hits between sends.
    public init(
        writer: any EventSubmitting, capacity: Int = 65_536, interval: Duration = .milliseconds(100), logger: Logger
    ) {
        self.writer = writer
        self.capacity = max(1, capacity)
        self.interval = interval
        self.logger = logger
    }

    /// Queues one hit; never waits. Returns `false` when the buffer was full (the hit is counted as lost).
    @discardableResult
    public func record(_ hit: MeasurementEvent) -> Bool {
        state.withLock { state in
            guard state.hits.count < capacity else {
                state.losses[.bufferFull, default: 0] += 1
                return false
            }
            state.hits.append(hit)
            return true
        }
    }

    /// The hits waiting to be sent.
    public var pendingCount: Int { state.withLock { $0.hits.count } }

    /// Sends the gathered hits every ``interval`` until graceful shutdown, then sends the last ones.
    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await send()
        }
        await send()
    }

    /// Sends what has gathered (and the loss counts) to the writer and waits for the commit.
    public func send() async {
        let (hits, losses) = state.withLock { state in
            defer { state = State() }
            return (state.hits, state.losses)
        }
        guard !hits.isEmpty || !losses.isEmpty else { return }
        do {
            _ = try await writer.submit(hits, losses: losses)
        } catch {
            state.withLock { state in
                state.losses.merge(losses) { $0 + $1 }
                state.losses[.sinkError, default: 0] += hits.count
            }
            let (verb, counted) = hits.count == 1 ? ("was", "it is") : ("were", "they are")
            let lost = String(counting: hits.count, "link hit")
            logger.warning("\(lost) \(verb) not stored (\(error)); \(counted) counted as lost")
        }
    }
}
