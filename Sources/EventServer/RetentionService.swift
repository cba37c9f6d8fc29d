import EventStoreInterface
import Logging
import MeasurementEvents
import ServiceLifecycle

/// Prunes the raw events older than the `retention` setting of `alstats serve` (docs/collector.md, "Retention"),
/// off the request path: once the store is ready, then each time the cut-off moves to the next UTC day (a UTC day
/// after the last cut-off, plus the period: ``RetentionPeriod/nextCutoffChange(after:)``), and 5 minutes after a
/// prune that failed. Each prune is ``EventRetention/prune(before:options:)``: a writer beside it, the collector's
/// included, waits for one of its transactions at most.
///
/// A `Service` of the application's `ServiceGroup`, started after the writer: at shutdown it stops first; a prune
/// under way stops after its transaction in progress (what it deleted stays deleted, and the next prune finishes).
/// Its clock (the wall clock and its waits, an ``AlertClock``) is injected, so that tests never wait for time.
final class RetentionService: Service, Sendable {
    /// How long raw events are kept.
    let period: RetentionPeriod
    private let retention: any EventRetention
    private let clock: any AlertClock
    private let metrics: ServerMetrics
    private let logger: Logger
    private let readiness: StoreReadiness
    /// Called with the outcome of each prune (tests wait on it instead of on time).
    private let observer: (@Sendable (Result<PruneSummary, StoreError>) -> Void)?
    /// The SQLite prune blocks its thread for as long as it runs: never one of the cooperative pool's.
    private let executor = StoreExecutor(label: "alstats-retention")

    /// How long after a failed prune the next is tried, in ms.
    static let retryDelay: Int64 = 5 * 60_000

    init(
        period: RetentionPeriod, retention: any EventRetention, clock: any AlertClock, metrics: ServerMetrics,
        logger: Logger, readiness: StoreReadiness,
        observer: (@Sendable (Result<PruneSummary, StoreError>) -> Void)? = nil
    ) {
        self.period = period
        self.retention = retention
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.readiness = readiness
        self.observer = observer
    }

    /// Waits for the store to be ready, prunes, and again whenever the cut-off moves, until graceful shutdown (which
    /// ends a wait at once, and a prune after its transaction in progress).
    func run() async {
        guard await cancelWhenGracefulShutdown({ await self.readiness.wait() }) else { return }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let now = clock.nowMilliseconds()
            let pruned = await cancelWhenGracefulShutdown { await self.prune(at: now) }
            let wake = pruned ? period.nextCutoffChange(after: now) : now + Self.retryDelay
            do {
                let clock = self.clock
                try await cancelWhenGracefulShutdown { try await clock.sleep(until: wake) }
            } catch {
                return
            }
        }
    }

    /// Prunes the raw events before the cut-off of `now`, and logs and counts what it did.
    /// - Returns: whether the prune ended without an error (a step left for the next prune is no error).
    @discardableResult
    func prune(at now: Int64) async -> Bool {
        let (retention, cutoff) = (self.retention, period.cutoff(now: now))
        do throws(StoreError) {
            let summary = try await executor.run { () async throws(StoreError) in
                try await retention.prune(before: cutoff, options: PruneOptions())
            }
            metrics.pruned(events: summary.events)
            if summary.events > 0 {
                let (events, since) = (
                    String(counting: summary.events, "raw event"),
                    EventTime.rfc3339(milliseconds: summary.rawEventsSince)
                )
                logger.notice("retention \(period): pruned \(events); raw events since \(since)")
            }
            for step in summary.deferred { logger.notice("retention \(period): left for the next prune: \(step)") }
            observer?(.success(summary))
            return true
        } catch {
            if Task.isCancelled || Task.isShuttingDownGracefully { return false }
            metrics.pruned(events: nil)
            logger.warning("retention \(period): the prune failed (it is tried again in 5 min): \(error.message)")
            observer?(.failure(error))
            return false
        }
    }
}
