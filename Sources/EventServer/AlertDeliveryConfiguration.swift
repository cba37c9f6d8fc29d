import Foundation
import MeasurementEvents

/// The `alerts` object of `alstats serve --config FILE` (docs/dashboard.md, "Alerts that reach someone"): the
/// webhook that gets a post when a cause of the alerts appears and when it clears, how often the alerts are
/// evaluated, and the window they are evaluated over (against the window before it).
///
/// ```swift
/// // {"alerts": {"webhook": "https://hooks.slack.com/services/...", "every": "15m", "window": "24h"}}
/// let alerts = try AlertDeliveryConfiguration.read(from: try ServerConfigFile.read("serve.json"))
/// ```
///
/// The webhook URL is a credential of the chat tool: nothing here or in the notifier writes it to a log, a metric
/// or a message (``description`` shows it as `(secret)`).
public struct AlertDeliveryConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The incoming webhook, http or https (Slack's, Mattermost's, or any that takes a JSON post).
    public var webhook: URL
    /// How often the alerts are evaluated (`every`, 15 minutes by default; 1 s to 1 day).
    public var every: Duration = .seconds(15 * 60)
    /// The window evaluated, against the window of the same length before it (`window`, 24 hours by default; 1
    /// minute to 90 days).
    public var window: Duration = .seconds(24 * 3_600)
    /// The longest a post may take before it counts as failed.
    public var requestTimeout: Duration = .seconds(10)
    /// The wait after a first failed post; it doubles with each failure of the same notice, up to
    /// ``maximumBackoff``. A `Retry-After` of the webhook (up to an hour) is waited at least.
    public var initialBackoff: Duration = .seconds(10)
    /// The longest wait between two posts of a notice.
    public var maximumBackoff: Duration = .seconds(600)
    /// How long a post under way at a graceful shutdown may still take, so that one the webhook answers is recorded
    /// (and not posted again by the next server); after it, the post is left, and its claim lapses.
    public var shutdownGrace: Duration = .seconds(2)

    /// A configuration posting to `webhook`, with the defaults.
    public init(webhook: URL) {
        self.webhook = webhook
    }

    /// The configuration, without the webhook's URL.
    public var description: String {
        "alerts to a webhook (secret) every \(Self.text(every)) over the last \(Self.text(window))"
    }

    public var debugDescription: String { description }

    /// The `alerts` object of `file`, or `nil` when it has none (no alerts are posted).
    /// - Throws: ``EventServerError`` (configuration) naming the member that is wrong, never the webhook's value.
    public static func read(from file: ServerConfigFile) throws(EventServerError) -> AlertDeliveryConfiguration? {
        guard let member = file.object["alerts"], member != .null else { return nil }
        let place = "\"alerts\" in \(file.path)"
        guard case .object(let object) = member else {
            throw .configuration(#"\#(place) must be an object such as {"webhook": "https://...", "every": "15m"}"#)
        }
        for key in object.keys where !["webhook", "every", "window"].contains(key) {
            throw .configuration("\(place) has \"\(key)\", which is not webhook, every or window")
        }
        guard let text = object["webhook"]?.stringValue, let url = URL(string: text),
            let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host?.isEmpty == false
        else {
            throw .configuration("\(place) needs \"webhook\": the http or https URL of an incoming webhook")
        }
        var configuration = AlertDeliveryConfiguration(webhook: url)
        if let every = try duration(object["every"], "every", place, within: 1_000...86_400_000) {
            configuration.every = every
        }
        if let window = try duration(object["window"], "window", place, within: 60_000...(90 * 86_400_000)) {
            configuration.window = window
        }
        return configuration
    }

    /// A duration member: `500ms`, `90s`, `15m`, `24h`, `7d`; `nil` when absent.
    private static func duration(
        _ value: JSONValue?, _ name: String, _ place: String, within range: ClosedRange<Int64>
    ) throws(EventServerError) -> Duration? {
        guard let value, value != .null else { return nil }
        let units: [(String, Int64)] = [("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        if let text = value.stringValue {
            for (suffix, unit) in units where text.hasSuffix(suffix) {
                guard let number = Int64(text.dropLast(suffix.count)), number >= 0, number < 1 << 40 else { break }
                let milliseconds = number * unit
                guard range.contains(milliseconds) else { break }
                return .milliseconds(milliseconds)
            }
        }
        throw .configuration(
            "\(place): \"\(name)\" must be a duration such as \"90s\", \"15m\" or \"24h\", from "
                + "\(text(.milliseconds(range.lowerBound))) to \(text(.milliseconds(range.upperBound)))")
    }

    /// `15 min`, `24 h`, `90 s`, `7 d`: a duration as a message or a post says it (days from two days on).
    static func text(_ duration: Duration) -> String {
        let milliseconds = duration.wholeMilliseconds
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("min", 60_000), ("s", 1_000)]
        where milliseconds >= size * (unit == "d" ? 2 : 1) && milliseconds % size == 0 {
            return "\(milliseconds / size) \(unit)"
        }
        return "\(milliseconds) ms"
    }
}
