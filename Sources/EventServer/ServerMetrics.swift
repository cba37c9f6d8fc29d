import MeasurementEvents
import Metrics

import class Prometheus.PrometheusCollectorRegistry
import struct Prometheus.PrometheusMetricsFactory

/// The server's counters, for `GET /metrics` (Prometheus text exposition).
///
/// Made with swift-metrics on a `PrometheusMetricsFactory` of the server's own registry, not the process-wide
/// `MetricsSystem` (which can be bootstrapped once only): each application, and each test, has its own.
final class ServerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let queued: Gauge
    private let commitLatency: Metrics.Timer
    private let failedCommits: Counter
    private let accepted: Counter
    private let duplicates: Counter
    private let failedUpkeeps: Counter
    private let deferredUpkeeps: Counter
    private let alertEvaluations: Counter
    private let failedAlertEvaluations: Counter
    private let lostClickTokens: Counter
    private let requestCounters = StateLock<[RequestCounterKey: Counter]>([:])
    private let openConnections: Gauge
    private let refusedConnections: Counter
    private let headerTimeouts: Counter
    private let bodyTimeouts: Counter

    /// The labels of one `alstats_http_requests_total` series.
    private struct RequestCounterKey: Hashable {
        var route: String
        var status: Int
    }

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(1000),
        ]
        self.factory = factory
        queued = Gauge(label: "alstats_write_queue_events", factory: factory)
        commitLatency = Metrics.Timer(label: "alstats_commit_seconds", factory: factory)
        failedCommits = Counter(label: "alstats_commits_failed_total", factory: factory)
        accepted = Counter(label: "alstats_events_accepted_total", factory: factory)
        duplicates = Counter(label: "alstats_events_duplicate_total", factory: factory)
        failedUpkeeps = Counter(label: "alstats_upkeep_failed_total", factory: factory)
        deferredUpkeeps = Counter(label: "alstats_upkeep_deferred_total", factory: factory)
        alertEvaluations = Counter(label: "alstats_alert_evaluations_total", factory: factory)
        failedAlertEvaluations = Counter(label: "alstats_alert_evaluations_failed_total", factory: factory)
        openConnections = Gauge(label: "alstats_connections_open", factory: factory)
        refusedConnections = Counter(label: "alstats_connections_refused_total", factory: factory)
        headerTimeouts = Counter(
            label: "alstats_connections_timed_out_total", dimensions: [("phase", "header")], factory: factory)
        bodyTimeouts = Counter(
            label: "alstats_connections_timed_out_total", dimensions: [("phase", "body")], factory: factory)
        lostClickTokens = Counter(label: "alstats_click_tokens_lost_total", factory: factory)
        // Made at start so that a scrape shows them at 0 before the first refusal.
        refusedConnections.increment(by: 0)
        headerTimeouts.increment(by: 0)
        bodyTimeouts.increment(by: 0)
    }

    /// The connection limits in force (``ServerLimits``), shown as gauges.
    func limits(_ limits: ServerLimits) {
        Gauge(label: "alstats_connections_max", factory: factory).record(limits.maxConnections)
        let timeouts: [(String, Duration)] = [
            ("header", limits.headerTimeout), ("body", limits.bodyTimeout), ("idle", limits.idleTimeout),
        ]
        for (name, duration) in timeouts {
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            Gauge(label: "alstats_timeout_seconds", dimensions: [("timeout", name)], factory: factory).record(seconds)
        }
    }

    /// The connections open now.
    func connectionsOpen(_ count: Int) { openConnections.record(count) }

    /// One connection accepted past `max_connections` and closed at once.
    func connectionRefused() { refusedConnections.increment() }

    /// One connection closed because its request head (`header`) or body did not arrive in time.
    func connectionTimedOut(inBody: Bool) { (inBody ? bodyTimeouts : headerTimeouts).increment() }

    /// A write key's rate limit, by the key's fingerprint (never the key): its rate and burst as gauges (no
    /// series for an unlimited key's rate), and the counters of its refusals.
    func keyLimit(fingerprint: String, rate: KeyRate) -> KeyLimitCounters {
        let dimensions = [("key", fingerprint)]
        if let eventsPerSecond = rate.eventsPerSecond {
            Gauge(label: "alstats_rate_limit_events_per_second", dimensions: dimensions, factory: factory)
                .record(eventsPerSecond)
            Gauge(label: "alstats_rate_limit_burst", dimensions: dimensions, factory: factory).record(rate.burst)
        }
        let counters = KeyLimitCounters(
            requests: Counter(label: "alstats_rate_limited_requests_total", dimensions: dimensions, factory: factory),
            events: Counter(label: "alstats_rate_limited_events_total", dimensions: dimensions, factory: factory))
        counters.requests.increment(by: 0)
        counters.events.increment(by: 0)
        return counters
    }

    /// The refusals of one write key's rate limit.
    struct KeyLimitCounters: Sendable {
        let requests: Counter
        let events: Counter

        /// One request of `events` events answered 429.
        func refused(events count: Int) {
            requests.increment()
            events.increment(by: count)
        }
    }

    /// One answered request of `route` (the route pattern, never the raw path) with `status`. The counter of
    /// each route and status is made once and kept: a request costs a look-up and an increment, not the
    /// labels and the registry's look-up of a new `Counter`.
    func request(route: String, status: Int) {
        let key = RequestCounterKey(route: route, status: status)
        if let counter = requestCounters.withLock({ $0[key] }) {
            counter.increment()
            return
        }
        let counter = Counter(
            label: "alstats_http_requests_total", dimensions: [("route", route), ("status", String(status))],
            factory: factory)
        requestCounters.withLock { $0[key] = counter }
        counter.increment()
    }

    /// Events of answered requests: newly stored, duplicates, and rejections by the receipt's code.
    func events(accepted newly: Int, duplicates repeated: Int, rejected: [String: Int]) {
        if newly > 0 { accepted.increment(by: newly) }
        if repeated > 0 { duplicates.increment(by: repeated) }
        for (code, count) in rejected where count > 0 {
            Counter(label: "alstats_events_rejected_total", dimensions: [("code", code)], factory: factory)
                .increment(by: count)
        }
    }

    /// Segment calls acknowledged and not stored (`identify`, `group`, `alias`), by type.
    func ignored(type: String, count: Int) {
        Counter(label: "alstats_segment_calls_ignored_total", dimensions: [("type", type)], factory: factory)
            .increment(by: count)
    }

    /// The events waiting in or being committed by the writer.
    func queueDepth(_ events: Int) { queued.record(events) }

    /// One commit of the writer, its duration and outcome.
    func commitFinished(after duration: Duration, succeeded: Bool) {
        commitLatency.record(duration: duration)
        if !succeeded { failedCommits.increment() }
    }

    /// One call of the store's upkeep (``StoreUpkeep``) that failed.
    func upkeepFailed() { failedUpkeeps.increment() }

    /// One call of the store's upkeep that left part of its work for the next call, another session holding what
    /// it needs (``SQLiteEventStore/UpkeepOutcome/deferred(_:)``).
    func upkeepDeferred() { deferredUpkeeps.increment() }

    /// One turn of the alert notifier done (``AlertNotifier``): the alerts evaluated and the notices due sent or
    /// tried; `failed` when the evaluation could not read or write the store.
    func alertsEvaluated(failed: Bool) {
        alertEvaluations.increment()
        if failed { failedAlertEvaluations.increment() }
    }

    /// A notice the alert webhook took, by notice (`firing`, `resolved`).
    func alertNoticeSent(_ notice: String) {
        Counter(label: "alstats_alert_notices_sent_total", dimensions: [("notice", notice)], factory: factory)
            .increment()
    }

    /// A post of a notice that failed, by reason (`status_500`, `timeout`, `unreachable`, ...): it is tried again.
    func alertNoticeFailed(reason: String) {
        Counter(label: "alstats_alert_notices_failed_total", dimensions: [("reason", reason)], factory: factory)
            .increment()
    }

    /// Click tokens minted and not kept (a full buffer, a failed store): their claims will find nothing
    /// (``ClickTokenRecorder``).
    func clickTokensLost(_ count: Int) { lostClickTokens.increment(by: count) }

    /// Claims of clicks (`POST /v1/deferred`) by outcome: `claimed`, `claimed_before`, `already_claimed`,
    /// `unknown_click`, `expired_click`, `no_click`.
    func claim(_ outcome: String) {
        Counter(label: "alstats_deferred_claims_total", dimensions: [("outcome", outcome)], factory: factory)
            .increment()
    }

    /// One prune of the `retention` setting (``RetentionService``) that ended: the raw events it deleted, or a
    /// failure (it is tried again).
    func pruned(events: Int?) {
        if let events {
            Counter(label: "alstats_pruned_events_total", factory: factory).increment(by: events)
        } else {
            Counter(label: "alstats_prunes_failed_total", factory: factory).increment()
        }
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> String { registry.emitToString() }
}
