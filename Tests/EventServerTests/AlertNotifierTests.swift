#if Server

import AsyncHTTPClient
import EventReport
import EventStoreInterface
import EventStoreSQLite
import Foundation
import Logging
import MeasurementEvents
import TestSupport
import Testing

@testable import EventServer

/// The alert notifier of `alstats serve` against a real webhook receiver (a listening socket) on an SQLite store,
/// turn by turn on a manual clock: each episode posted once when it fires and once when it resolves, also across a
/// restart; a webhook that fails, hangs or is down retried with backoff and counted.
@Suite(.timeLimit(.minutes(5)))
struct AlertNotifierTests {
    /// 2025-11-21T00:00:00Z.
    static let now: Int64 = 1_763_683_200_000
    static let minute: Int64 = 60_000
    /// The webhook's path: a credential, which must never show in `/metrics`.
    static let hookPath = "/services/T0001/B0002/s3cr3t-webhook-token"

    /// A database with video.example.org broken in the 24 hours before ``now``, a receiver, a clock, the metrics and a
    /// client; `notifier()` makes a notifier on them as a server (re)started on the database would.
    final class Setup: Sendable {
        let database = TemporaryDatabase()
        let clock = ManualAlertClock(milliseconds: AlertNotifierTests.now)
        let metrics = ServerMetrics()
        let receiver: WebhookReceiver
        /// One client for every test of the process, never shut down (a client must be shut down before it is freed,
        /// which a test that fails half-way would not do).
        static let client = AlertWebhook.makeClient()

        init(receiver: WebhookReceiver? = nil) throws {
            self.receiver = try receiver ?? WebhookReceiver()
            try SQLiteEventStore(path: database.path).write(
                BrokenHostTraffic.events(endingAt: AlertNotifierTests.now, brokenHoursAgo: 6, healthyHoursAgo: 30))
        }

        var configuration: AlertDeliveryConfiguration {
            AlertDeliveryConfiguration(webhook: receiver.url(AlertNotifierTests.hookPath))
        }

        /// A notifier on the database, opened afresh (a new owner of claims, as after a restart).
        func notifier() throws -> AlertNotifier {
            let store = try SQLiteEventStore(path: database.path)
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            return AlertNotifier(
                configuration: configuration, reports: ReportReader(store: store), episodes: store, clock: clock,
                metrics: metrics, logger: logger, readiness: StoreReadiness())
        }

        var webhook: AlertWebhook {
            AlertWebhook(
                url: configuration.webhook, client: Self.client, clock: clock, timeout: configuration.requestTimeout)
        }

        /// The value of the metric line that starts with `series` (0 when absent).
        func metric(_ series: String) -> Int {
            let line = metrics.exposition().split(separator: "\n").first { $0.hasPrefix(series + " ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }

        func finish() {
            receiver.stop()
        }
    }

    @Test func anEpisodeIsPostedOnceWhenItFiresAndOnceWhenItResolvesAcrossARestart() async throws {
        let setup = try Setup()
        let first = try setup.notifier()
        await first.turn(webhook: setup.webhook)
        let firing = try await setup.receiver.requests(atLeast: 1)
        #expect(firing.count == 1)
        let post = try #require(firing.first)
        #expect(post.method == "POST" && post.path == Self.hookPath)
        #expect(post.headers["content-type"] == "application/json")
        let body = try #require(post.json)
        #expect(body["status"] == "firing")
        let text = try #require(body["text"]?.stringValue)
        #expect(text.hasPrefix("alstats alert: source host `video.example.org`: outbound success 30.0%, was 96.0%"))
        #expect(text.contains("with it fell all outbound navigations, ref `feed`, ref `share`"), "\(text)")
        #expect(text.hasSuffix("(the last 24 h against the 24 h before)."), "\(text)")
        guard case .array(let alerts)? = body["alerts"], case .array(let explained)? = alerts.first?["explains"] else {
            Issue.record("no alerts with explains in \(post.body)")
            return
        }
        #expect(alerts.count == 1 && alerts.first?["value"] == "video.example.org" && explained.count == 3)

        // Later turns, and a restarted server's, post nothing more while the cause lasts.
        setup.clock.advance(by: 15 * Self.minute)
        await first.turn(webhook: setup.webhook)
        let restarted = try setup.notifier()
        await restarted.turn(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 1)

        // The host recovers: one resolved notice, then nothing.
        try SQLiteEventStore(path: setup.database.path).write(
            BrokenHostTraffic.recovery(endingAt: Self.now, hoursAgo: 5))
        setup.clock.advance(by: 15 * Self.minute)
        await restarted.turn(webhook: setup.webhook)
        let resolved = try await setup.receiver.requests(atLeast: 2)
        #expect(resolved.count == 2 && resolved[1].json?["status"] == "resolved")
        #expect(
            resolved[1].json?["text"]?.stringValue?.hasPrefix(
                "alstats alert resolved: source host `video.example.org` no longer falls") == true)
        setup.clock.advance(by: 15 * Self.minute)
        await restarted.turn(webhook: setup.webhook)
        await first.turn(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 2)
        #expect(setup.metric(#"alstats_alert_notices_sent_total{notice="firing"}"#) == 1)
        #expect(setup.metric(#"alstats_alert_notices_sent_total{notice="resolved"}"#) == 1)
        #expect(setup.metric("alstats_alert_evaluations_total") == 6)
        #expect(!setup.metrics.exposition().contains("s3cr3t"), "the webhook's URL is a secret")
        setup.finish()
    }

    @Test func aWebhookThatAnswers500IsRetriedWithADoublingBackoffAndCounted() async throws {
        let setup = try Setup()
        setup.receiver.answer = .status(500)
        let notifier = try setup.notifier()
        await notifier.turn(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 1)
        #expect(setup.metric(#"alstats_alert_notices_failed_total{reason="status_500"}"#) == 1)
        // 10 s after the first failure, 20 s after the second.
        setup.clock.advance(by: 9_999)
        await notifier.deliverDue(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 1, "before its backoff")
        setup.clock.advance(by: 1)
        await notifier.deliverDue(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 2)
        setup.receiver.answer = .status(200)
        setup.clock.advance(by: 19_999)
        await notifier.deliverDue(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 2, "before its doubled backoff")
        setup.clock.advance(by: 1)
        await notifier.deliverDue(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 3)
        #expect(setup.receiver.requests.allSatisfy { $0.json?["status"] == "firing" })
        #expect(setup.metric(#"alstats_alert_notices_failed_total{reason="status_500"}"#) == 2)
        #expect(setup.metric(#"alstats_alert_notices_sent_total{notice="firing"}"#) == 1)
        setup.clock.advance(by: 3_600_000)
        await notifier.turn(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 3, "sent once it was taken")
        setup.finish()
    }

    @Test func aRetryAfterOfTheWebhookIsWaitedAtLeast() async throws {
        let setup = try Setup()
        setup.receiver.answer = .status(429, retryAfter: 120)
        let notifier = try setup.notifier()
        await notifier.turn(webhook: setup.webhook)
        setup.receiver.answer = .status(200)
        setup.clock.advance(by: 119_999)
        await notifier.deliverDue(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 1)
        setup.clock.advance(by: 1)
        await notifier.deliverDue(webhook: setup.webhook)
        #expect(setup.receiver.requests.count == 2)
        #expect(setup.metric(#"alstats_alert_notices_failed_total{reason="status_429"}"#) == 1)
        setup.finish()
    }

    @Test func aWebhookThatHangsTimesOutOnTheNotifiersClockAndIsRetried() async throws {
        let setup = try Setup()
        setup.receiver.answer = .hang
        let notifier = try setup.notifier()
        let webhook = setup.webhook
        let turn = Task { await notifier.turn(webhook: webhook) }
        _ = try await setup.receiver.requests(atLeast: 1)
        setup.clock.advance(by: 10_000)  // the post's time limit
        await turn.value
        #expect(setup.metric(#"alstats_alert_notices_failed_total{reason="timeout"}"#) == 1)
        setup.receiver.answer = .status(200)
        setup.clock.advance(by: 10_000)
        await notifier.deliverDue(webhook: webhook)
        #expect(setup.receiver.requests.count == 2)
        #expect(setup.metric(#"alstats_alert_notices_sent_total{notice="firing"}"#) == 1)
        setup.finish()
    }

    @Test func aWebhookThatIsDownIsRetriedUntilItIsBack() async throws {
        let down = try WebhookReceiver()
        let port = down.port
        down.stop()
        let setup = try Setup(receiver: down)
        let notifier = try setup.notifier()
        await notifier.turn(webhook: setup.webhook)
        setup.clock.advance(by: 10_000)
        await notifier.deliverDue(webhook: setup.webhook)
        #expect(setup.metric(#"alstats_alert_notices_failed_total{reason="unreachable"}"#) == 2)
        let back = try WebhookReceiver(port: port)
        setup.clock.advance(by: 20_000)
        await notifier.deliverDue(webhook: setup.webhook)
        #expect(back.requests.count == 1 && back.requests.first?.json?["status"] == "firing")
        back.stop()
        setup.finish()
    }
}

#endif
