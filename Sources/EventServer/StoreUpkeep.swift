import EventStoreInterface
import Logging
import ServiceLifecycle

/// Calls the store's ``EventBackend/upkeep()`` every ``interval`` while the server runs, off the write
/// path: on PostgreSQL it summarises the ranges of the time index that the collector's writes filled, which
/// autovacuum leaves undone when ranges fill faster than it visits (docs/design/postgres-layout.md, "Summaries"); on
/// SQLite it has nothing to do. A failed call is logged as a warning and counted in
/// `alstats_upkeep_failed_total`; what it left is done by the next one, and no event is affected.
///
/// Run as a `Service` after the writer in the same group: at shutdown it stops first, without a last call, and a
/// call under way is cancelled; what is left waits for autovacuum, or for the next upkeep of a server that writes
/// the same partitions. A summary that waits more than 2 s for a partition's lock (another server's summary, a
/// `VACUUM`) is not a failure: it is left for the next call, logged as a notice and counted in
/// `alstats_upkeep_deferred_total`.
final class StoreUpkeep: Service, Sendable {
    /// How long between two calls.
    let interval: Duration
    private let backend: any EventBackend
    private let metrics: ServerMetrics
    private let logger: Logger

    init(backend: any EventBackend, interval: Duration, metrics: ServerMetrics, logger: Logger) {
        self.backend = backend
        self.interval = interval
        self.metrics = metrics
        self.logger = logger
    }

    /// Waits ``interval``, calls the upkeep, and again, until graceful shutdown (which ends the wait at once).
    func run() async {
        while true {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            } catch {
                return  // shutting down, or cancelled
            }
            do {
                // A call waiting on an unreachable database must not hold up the shutdown.
                let outcome = try await cancelWhenGracefulShutdown { try await self.backend.upkeep() }
                if case .deferred(let reason) = outcome {
                    metrics.upkeepDeferred()
                    logger.notice("the store's upkeep left part of its work for its next call: \(reason)")
                }
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { return }
                metrics.upkeepFailed()
                let message = (error as? StoreError)?.message ?? "\(error)"
                logger.warning("the store's upkeep failed (it is tried again in \(interval)): \(message)")
            }
        }
    }
}
