#if Server

import EventStoreInterface
import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `alstats serve` with `"alerts"` in its config, as a user runs it: the built binary evaluating every second on the
/// real clock, a real webhook receiver. One firing post and one resolved post per episode, also when the server is
/// restarted in the middle of it, and the webhook's URL nowhere in the log or `/metrics`.
@Suite(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"), .timeLimit(.minutes(5)))
struct AlertServeTests {
    static let hookPath = "/services/T0001/B0002/s3cr3t-webhook-token"

    @Test func serveWithAWebhookPostsAnEpisodeOnceAndItsResolutionOnceAcrossARestart() async throws {
        let fixture = ServerFixture()
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        try SQLiteEventStore(path: fixture.path).write(
            BrokenHostTraffic.events(endingAt: now, brokenHoursAgo: 6, healthyHoursAgo: 30))
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let config = try AlertServeTests.config(in: fixture.folder, webhook: receiver.url(Self.hookPath))

        let first = try ServeProcess(database: fixture.path, arguments: ["--config", config])
        let firing = try await receiver.requests(atLeast: 1)
        #expect(firing.first?.json?["status"] == "firing")
        guard case .array(let alerts)? = firing.first?.json?["alerts"] else {
            Issue.record("no alerts in \(firing)")
            return
        }
        #expect(alerts.first?["value"] == "video.example.org")
        #expect(first.stop(with: SIGTERM) == 0, "\(first.stderr)")

        let second = try ServeProcess(database: fixture.path, arguments: ["--config", config])
        try await second.waitForAlertEvaluations(2)
        #expect(receiver.requests.count == 1, "a restarted server does not post the episode again")
        let recovery = BrokenHostTraffic.recovery(endingAt: now, hoursAgo: 5)
        #expect(second.request("POST", "/v1/events", body: AlertServeTests.ndjson(recovery))?.status == 200)
        let resolved = try await receiver.requests(atLeast: 2)
        #expect(resolved[1].json?["status"] == "resolved")
        try await second.waitForAlertEvaluations(try second.alertEvaluations() + 2)
        #expect(receiver.requests.count == 2, "\(receiver.requests.map(\.body))\n\(second.stderr)")
        let metrics = second.request("GET", "/metrics", key: "r1")?.body ?? ""
        #expect(metrics.contains(#"alstats_alert_notices_sent_total{notice="resolved"} 1"#), "\(metrics)")
        #expect(second.stop(with: SIGTERM) == 0)
        for log in [first.stderr, second.stderr, metrics] {
            #expect(!log.contains("s3cr3t") && !log.contains(":\(receiver.port)"), "the webhook's URL is a secret")
        }
        #expect(first.stderr.contains("alert: source host video.example.org fell"), "\(first.stderr)")
    }

    @Test func aConfigWithAnInvalidAlertsObjectIsAUsageErrorThatDoesNotShowTheWebhook() throws {
        let fixture = ServerFixture()
        let path = fixture.folder.appendingPathComponent("serve.json").path
        for alerts in [
            #"{"webhook": "ftp://hooks.example.com/s3cr3t"}"#,
            #"{"webhook": "https://hooks.example.com/s3cr3t", "every": "soon"}"#,
            #"{"webhook": "https://hooks.example.com/s3cr3t", "window": "10s"}"#, #"{"hook": "https://x/s3cr3t"}"#,
        ] {
            try #"{"alerts": \#(alerts)}"#.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try BuiltAlstats.run(
                ["serve", "--database", fixture.path, "--port", "0", "--config", path],
                environment: ["ALSTATS_WRITE_KEYS": "w1"])
            #expect(result.status == 64, "\(alerts): \(result.errors)")
            #expect(result.errors.contains("\"alerts\" in \(path)"), "\(result.errors)")
            #expect(!result.errors.contains("s3cr3t"), "\(result.errors)")
        }
    }

    /// A config file in `folder` with the alerts posted to `webhook` every second over the last day.
    static func config(in folder: URL, webhook: URL) throws -> String {
        let path = folder.appendingPathComponent("serve.json").path
        let text = #"{"alerts": {"webhook": "\#(webhook.absoluteString)", "every": "1s", "window": "24h"}}"#
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `events` as an NDJSON body.
    static func ndjson(_ events: [MeasurementEvent]) -> String {
        events.map { NDJSONCodec.line(for: $0) }.joined(separator: "\n")
    }
}

extension ServeProcess {
    /// `alstats_alert_evaluations_total` of `/metrics`: the notifier's turns done (0 before the first).
    func alertEvaluations() throws -> Int {
        let body = request("GET", "/metrics", key: "r1")?.body ?? ""
        let line = body.split(separator: "\n").first { $0.hasPrefix("alstats_alert_evaluations_total ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// Waits until the notifier has done `count` turns (a hang guard of a minute).
    func waitForAlertEvaluations(_ count: Int) async throws {
        for _ in 0..<600 {
            if try alertEvaluations() >= count { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the alerts were not evaluated \(count) times within a minute: \(stderr)")
    }
}

#endif
