#if Server

import EventReport
import EventStoreInterface
import Foundation
import MeasurementEvents
import Testing

@testable import EventServer

/// The webhook's post and the `alerts` of the config: what a chat shows, values that cannot mention anyone or make a
/// link, and a webhook URL that no message shows.
struct AlertMessageTests {
    static func delivery(ref: String, notice: AlertNotice = .firing) -> AlertDelivery {
        let alert = Report.Alert(
            dimension: .ref, value: ref, measure: .navOutSuccessRate,
            now: .init(attempts: 200, succeeded: 60), before: .init(attempts: 200, succeeded: 190),
            topFailure: .init(error: "<b>boom</b>", now: 140, before: 10))
        return AlertDelivery(
            episode: AlertEpisode(
                id: 1, slice: "ref=\(ref)", alert: alert.json.jsonText(), openedMilliseconds: 1_763_683_200_000,
                resolvedMilliseconds: notice == .resolved ? 1_763_690_000_000 : nil),
            notice: notice, failedAttempts: 0)
    }

    @Test func valuesFromEventsAreCodeSpansEscapedForSlackAndTheBodyCarriesTheAlert() throws {
        let message = AlertMessage(delivery: Self.delivery(ref: "<!channel> @here `x` & co"), window: .seconds(3_600))
        #expect(
            message.text
                == "alstats alert: ref `&lt;!channel&gt; @here 'x' &amp; co`: outbound success 30.0%, was 95.0% "
                + "(\u{2212}65.0 pp), 200 attempts (200 before); top failure: `&lt;b&gt;boom&lt;/b&gt;`, 140 (10 before) "
                + "(the last 1 h against the 1 h before).")
        let body = try JSONValue.parse(String(decoding: message.body, as: UTF8.self))
        #expect(body["status"] == "firing" && body["text"] == .string(message.text))
        guard case .array(let alerts)? = body["alerts"] else { throw AlertTestFailure("no alerts in the body") }
        #expect(alerts.count == 1 && alerts.first?["value"] == "<!channel> @here `x` & co", "the JSON keeps the value")
        let resolved = AlertMessage(delivery: Self.delivery(ref: "feed", notice: .resolved), window: .seconds(86_400))
        #expect(
            resolved.text
                == "alstats alert resolved: ref `feed` no longer falls (it fired at 2025-11-21T00:00:00.000Z).")
    }

    @Test func theAlertsOfTheConfigAreReadWithTheirDefaultsAndBoundsWithoutShowingTheWebhook() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("alstats-alerts-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func read(_ alerts: String) throws(EventServerError) -> AlertDeliveryConfiguration? {
            let path = folder.appendingPathComponent("serve.json").path
            try? #"{"write_keys": ["w1"]\#(alerts.isEmpty ? "" : ", \"alerts\": " + alerts)}"#.write(
                toFile: path, atomically: true, encoding: .utf8)
            return try AlertDeliveryConfiguration.read(from: try ServerConfigFile.read(path))
        }
        #expect(try read("") == nil)
        let defaults = try #require(try read(#"{"webhook": "https://hooks.example.com/T1/s3cr3t"}"#))
        #expect(defaults.every == .seconds(900) && defaults.window == .seconds(86_400))
        #expect(defaults.description == "alerts to a webhook (secret) every 15 min over the last 24 h")
        let custom = try #require(try read(#"{"webhook": "http://127.0.0.1:9/h", "every": "90s", "window": "7d"}"#))
        #expect(custom.every == .seconds(90) && custom.window == .seconds(7 * 86_400))
        for bad in [
            #"{"webhook": "hooks.example.com/s3cr3t"}"#, #"{"webhook": "https://h.example/s3cr3t", "every": "500ms"}"#,
            #"{"webhook": "https://h.example/s3cr3t", "window": "91d"}"#,
            #"{"webhook": "https://h.example/s3cr3t", "every": 60}"#,
            ##"{"webhook": "https://h.example/s3cr3t", "channel": "#ops"}"##, #""https://h.example/s3cr3t""#,
        ] {
            let error = #expect(throws: EventServerError.self, "\(bad)") { try read(bad) }
            #expect(error?.kind == .configuration)
            #expect(error?.message.contains("s3cr3t") == false, "\(String(describing: error))")
        }
    }
}

struct AlertTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

#endif
