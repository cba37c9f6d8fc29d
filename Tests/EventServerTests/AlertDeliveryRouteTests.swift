#if Server

import EventServer
import EventStoreSQLite
import Foundation
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

/// The alert notifier inside the application: nothing of the collector waits on the webhook. While a post hangs, or
/// the webhook is down, events are still accepted and committed, `/healthz` answers and `/metrics` counts the
/// failures, without the webhook's URL.
struct AlertDeliveryRouteTests {
    enum Webhook: String, CaseIterable {
        case hanging, down
    }

    @Test(arguments: Webhook.allCases)
    func theCollectorKeepsAcceptingEventsWhileTheWebhook(is webhook: Webhook) async throws {
        let fixture = ServerFixture()
        try SQLiteEventStore(path: fixture.path).write(
            BrokenHostTraffic.events(endingAt: ServerFixture.now, brokenHoursAgo: 6, healthyHoursAgo: 30))
        let receiver = try WebhookReceiver()
        receiver.answer = .hang
        if webhook == .down { receiver.stop() }
        defer { receiver.stop() }
        let clock = ManualAlertClock(milliseconds: ServerFixture.now)
        let app = try fixture.application { configuration in
            var alerts = AlertDeliveryConfiguration(webhook: receiver.url("/hooks/s3cr3t"))
            alerts.shutdownGrace = .milliseconds(100)  // the hanging post's, at the end of the test
            configuration.alerts = alerts
            configuration.alertClock = clock
        }
        try await app.test(.live) { client in
            // The notifier's first turn posts the firing notice: it hangs, or fails and waits for its retry.
            if webhook == .hanging {
                _ = try await receiver.requests(atLeast: 1)
            } else {
                try await waitForMetric(#"alstats_alert_notices_failed_total{reason="unreachable"}"#, client: client)
            }
            for batch in 0..<20 {
                let body = (0..<50).map { index in
                    #"{"id":"b\#(batch)-\#(index)","name":"al_nav_in","ts":\#(ServerFixture.now),"fields":{}}"#
                }.joined(separator: "\n")
                try await client.execute(
                    uri: "/v1/events", method: .post, headers: headers(), body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == .ok)
                    #expect(json(response)["accepted"] == .int(50))
                }
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/metrics", method: .get, headers: headers(key: ServerFixture.readKey)) {
                #expect(!String(buffer: $0.body).contains("s3cr3t"), "the webhook's URL is a secret")
            }
        }
        #expect(try fixture.storedEvents().keys.filter { $0.hasPrefix("b") }.count == 1_000)
    }

    /// Waits (a hang guard of a minute) until `/metrics` shows `series` at least once.
    func waitForMetric(_ series: String, client: any TestClientProtocol) async throws {
        for _ in 0..<6_000 {
            let found = try await client.execute(
                uri: "/metrics", method: .get, headers: headers(key: ServerFixture.readKey)
            ) { String(buffer: $0.body).contains(series + " 1") }
            if found { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(series) never showed in /metrics")
    }
}

#endif
