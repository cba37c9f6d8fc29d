import EventReport
import EventStoreInterface
import Foundation
import MeasurementEvents

/// The post of one notice to the alert webhook: `{"text": ..., "status": "firing"|"resolved", "alerts": [...]}`.
/// `text` is one line a chat tool shows as it is (Slack's and Mattermost's incoming webhooks read `text` and ignore
/// the rest); `alerts` holds the episode's cause as the report's JSON gives it, with the alerts it explains.
///
/// Values that events carry (hosts, refs, errors) go into code spans, so that none can mention a channel, make a
/// link or format the line; `&`, `<` and `>` are escaped as Slack asks.
struct AlertMessage {
    /// The notice.
    var delivery: AlertDelivery
    /// The window the alerts are evaluated over.
    var window: Duration

    /// The JSON body.
    var body: [UInt8] {
        let alert = try? JSONValue.parse(delivery.episode.alert)
        let object: JSONObject = [
            "text": .string(text), "status": .string(delivery.notice.rawValue),
            "alerts": .array(alert.map { [$0] } ?? []),
        ]
        return Array(JSONValue.object(object).jsonText().utf8)
    }

    /// The line: what fell and by how much, or that it no longer does.
    var text: String {
        let alert = (try? JSONValue.parse(delivery.episode.alert)).flatMap(Report.Alert.init(json:))
        let slice = alert?.sliceDescription(quoting: Self.code) ?? Self.code(delivery.episode.slice)
        let span = AlertDeliveryConfiguration.text(window)
        switch delivery.notice {
        case .firing:
            var line = "alstats alert: \(slice): " + (alert?.summary(quoting: Self.code) ?? "its success fell")
            if let explained = alert?.explains, !explained.isEmpty {
                let names = explained.map { $0.sliceDescription(quoting: Self.code) }
                line += "; with it fell \(names.joined(separator: ", "))"
            }
            return Self.escaped(line + " (the last \(span) against the \(span) before).")
        case .resolved:
            let since = EventTime.rfc3339(milliseconds: delivery.episode.openedMilliseconds)
            return Self.escaped("alstats alert resolved: \(slice) no longer falls (it fired at \(since)).")
        }
    }

    /// `value` as a code span: its backticks and line breaks replaced, so that it stays one span on one line.
    static func code(_ value: String) -> String {
        let flat = value.map { character -> Character in
            switch character {
            case "`": "'"
            case "\n", "\r", "\t": " "
            default: character
            }
        }
        return "`" + String(flat) + "`"
    }

    /// `&`, `<`, `>` escaped as Slack's message formatting needs them.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
