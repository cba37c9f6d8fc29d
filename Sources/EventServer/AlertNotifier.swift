import AsyncHTTPClient
import EventReport
import EventStoreInterface
import Foundation
import Logging
import MeasurementEvents
import ServiceLifecycle

/// Evaluates the alerts every ``AlertDeliveryConfiguration/every`` and posts to the webhook when a cause appears and
/// when it clears (docs/dashboard.md, "Alerts that reach someone"); a `Service` of the application's `ServiceGroup`,
/// off the request path.
///
/// A turn (``turn(webhook:)``): read the report of the last ``AlertDeliveryConfiguration/window`` compared with the
/// window before it; open an episode in the store for each cause that has none open, resolve each open episode whose
/// cause is gone; then claim and post each notice that is due, one attempt each. A post that fails is retried after
/// a backoff that doubles from ``AlertDeliveryConfiguration/initialBackoff`` to
/// ``AlertDeliveryConfiguration/maximumBackoff`` (and waits at least what `Retry-After` asked), counted in `/metrics`
/// by reason. The episodes and their claims live in the store (``AlertEpisodeStore``), so a restarted server neither
/// repeats nor forgets a notice, and servers sharing a PostgreSQL database send each once: a claim holds a notice
/// for ``lease``, which a server that died mid-post lets lapse for another to send it.
///
/// The webhook's URL is never logged: failures are logged with their reason only.
final class AlertNotifier: Service, Sendable {
    let configuration: AlertDeliveryConfiguration
    /// How long a claim holds a notice: two time limits of a post, and half a minute.
    var lease: Duration { configuration.requestTimeout * 2 + .seconds(30) }
    private let reports: any ReportSource
    private let episodes: any AlertEpisodeStore
    private let clock: any AlertClock
    private let metrics: ServerMetrics
    private let logger: Logger
    private let readiness: StoreReadiness
    /// This notifier's name in the claims it makes, random per run.
    private let owner = UUID().uuidString
    private let executor = StoreExecutor(label: "alstats-alerts")

    init(
        configuration: AlertDeliveryConfiguration, reports: any ReportSource, episodes: any AlertEpisodeStore,
        clock: any AlertClock, metrics: ServerMetrics, logger: Logger, readiness: StoreReadiness
    ) {
        self.configuration = configuration
        self.reports = reports
        self.episodes = episodes
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.readiness = readiness
    }

    /// Waits for the store to be ready, then takes a turn at once and again every
    /// ``AlertDeliveryConfiguration/every`` (sooner when a retry is due), until graceful shutdown. Shutdown ends a
    /// wait at once; a post under way gets ``AlertDeliveryConfiguration/shutdownGrace`` to be answered and recorded
    /// (after it, its claim lapses, and another server or the next run posts it again).
    func run() async throws {
        let client = AlertWebhook.makeClient()
        var webhook = AlertWebhook(
            url: configuration.webhook, client: client, clock: clock, timeout: configuration.requestTimeout)
        webhook.shutdownGrace = configuration.shutdownGrace
        await turns(webhook: webhook)
        try? await client.shutdown()
    }

    private func turns(webhook: AlertWebhook) async {
        guard await cancelWhenGracefulShutdown({ await self.readiness.wait() }) else { return }
        var nextEvaluation = clock.nowMilliseconds()
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if clock.nowMilliseconds() >= nextEvaluation {
                nextEvaluation = clock.nowMilliseconds() + configuration.every.wholeMilliseconds
                await turn(webhook: webhook)
            } else {
                await deliverDue(webhook: webhook)
            }
            let due =
                (try? await executor.run { () async throws(StoreError) in try await episodes.nextAlertDeliveryTime() })
            let wake = max(min(nextEvaluation, (due ?? nil) ?? .max), clock.nowMilliseconds() + 1_000)
            do {
                let clock = self.clock
                try await cancelWhenGracefulShutdown { try await clock.sleep(until: wake) }
            } catch {
                return
            }
        }
    }

    /// One evaluation and the deliveries it made due (or that were due already); counted in
    /// `alstats_alert_evaluations_total` once done.
    func turn(webhook: AlertWebhook) async {
        var failed = false
        do throws(StoreError) {
            try await evaluate(at: clock.nowMilliseconds())
        } catch {
            failed = true
            let every = AlertDeliveryConfiguration.text(configuration.every)
            logger.warning("the alerts could not be evaluated (tried again in \(every)): \(error.message)")
        }
        await deliverDue(webhook: webhook)
        metrics.alertsEvaluated(failed: failed)
    }

    /// Opens an episode for each cause of the window ending `now` that has none open, and resolves each open
    /// episode whose cause is not among them.
    func evaluate(at now: Int64) async throws(StoreError) {
        let (reports, episodes, window) = (self.reports, self.episodes, configuration.window.wholeMilliseconds)
        try await executor.run { () async throws(StoreError) in
            let query = ReportQuery(since: now - window, until: now)
            let causes = try await reports.readReport(for: query, comparison: .previous).alerts ?? []
            let bySlice = Dictionary(causes.map { (Self.slice(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
            let open = try await episodes.openAlertEpisodes()
            let openSlices = Set(open.map(\.slice))
            for (slice, cause) in bySlice where !openSlices.contains(slice) {
                if try await episodes.openAlertEpisode(slice: slice, alert: cause.json.jsonText(), at: now) {
                    logger.notice("alert: \(cause.sliceDescription) fell: \(cause.summary)")
                }
            }
            for episode in open where bySlice[episode.slice] == nil {
                if try await episodes.resolveAlertEpisode(id: episode.id, at: now) {
                    logger.notice("alert resolved: \(episode.slice) no longer falls")
                }
            }
        }
    }

    /// Claims and posts each notice due now, one attempt each, until none is left that this notifier may claim.
    func deliverDue(webhook: AlertWebhook) async {
        let (episodes, owner) = (self.episodes, self.owner)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let now = clock.nowMilliseconds()
            let leaseUntil = now + lease.wholeMilliseconds
            let claimed = try? await executor.run { () async throws(StoreError) in
                try await episodes.claimAlertDelivery(owner: owner, at: now, leaseUntil: leaseUntil)
            }
            guard let delivery = claimed ?? nil else { return }
            let outcome = await webhook.post(AlertMessage(delivery: delivery, window: configuration.window).body)
            // Cancelled, or left at shutdown: the claim lapses, and the notice is posted again.
            if Task.isCancelled || outcome == .abandoned { return }
            await record(outcome, of: delivery)
        }
    }

    private func record(_ outcome: AlertWebhook.Outcome, of delivery: AlertDelivery) async {
        let (episodes, owner, now) = (self.episodes, self.owner, clock.nowMilliseconds())
        do throws(StoreError) {
            switch outcome {
            case .delivered:
                try await executor.run { () async throws(StoreError) in
                    try await episodes.finishAlertDelivery(delivery, owner: owner, at: now)
                }
                metrics.alertNoticeSent(delivery.notice.rawValue)
            case .abandoned:
                return
            case .failed(let reason, let retryAfter):
                let wait = max(backoff(afterFailures: delivery.failedAttempts + 1), retryAfter ?? .zero)
                try await executor.run { () async throws(StoreError) in
                    try await episodes.failAlertDelivery(delivery, owner: owner, retryAt: now + wait.wholeMilliseconds)
                }
                metrics.alertNoticeFailed(reason: reason)
                let notice = "the \(delivery.notice.rawValue) notice of \(delivery.episode.slice)"
                let retry = AlertDeliveryConfiguration.text(wait)
                logger.warning("the alert webhook did not take \(notice) (\(reason)); it is tried again in \(retry)")
            }
        } catch {
            // The claim lapses and the notice is claimed again; a sent one may then be sent twice.
            logger.warning("the alert notice of \(delivery.episode.slice) could not be recorded: \(error.message)")
        }
    }

    /// The wait after `failures` failed posts of a notice: the initial backoff, doubled for each failure after the
    /// first, at most the maximum.
    func backoff(afterFailures failures: Int) -> Duration {
        var wait = configuration.initialBackoff
        for _ in 1..<max(1, min(failures, 40)) where wait < configuration.maximumBackoff { wait *= 2 }
        return min(wait, configuration.maximumBackoff)
    }

    /// The episode's slice of a cause: `all`, or `dimension=value` (`ref` alone for the events without a ref).
    static func slice(of alert: Report.Alert) -> String {
        guard let value = alert.value else { return alert.dimension.rawValue }
        return "\(alert.dimension.rawValue)=\(value)"
    }
}
