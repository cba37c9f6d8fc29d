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
    private let lostClickTokens: Counter
    private let requestCounters = StateLock<[RequestCounterKey: Counter]>([:])

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
        lostClickTokens = Counter(label: "alstats_click_tokens_lost_total", factory: factory)
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

    /// Click tokens minted and not kept (a full buffer, a failed store): their claims will find nothing
    /// (``ClickTokenRecorder``).
    func clickTokensLost(_ count: Int) { lostClickTokens.increment(by: count) }

    /// Claims of clicks (`POST /v1/deferred`) by outcome: `claimed`, `claimed_before`, `already_claimed`,
    /// `unknown_click`, `expired_click`, `no_click`.
    func claim(_ outcome: String) {
        Counter(label: "alstats_deferred_claims_total", dimensions: [("outcome", outcome)], factory: factory)
            .increment()
    }

    /// The Prometheus text exposition of every metric.
    func exposition() -> String { registry.emitToString() }
}
