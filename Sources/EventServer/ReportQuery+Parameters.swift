import EventReport
import EventStoreInterface
import Foundation
import Hummingbird
import MeasurementEvents

/// The query parameters of `GET /api/report` (and of the dashboard, through ``DashboardView/apiParameters``),
/// read as `alstats report` reads its options: `since`, `until` (RFC 3339 or `YYYY-MM-DD` in `tz`), `ref`,
/// `referer_app`, `source_host`, `link` (combined with AND), `tz`, `top`, `compare=previous` (or `none`), and
/// the dashboard's `period` (`today`, `7d`, `30d` end now; `all` has no bounds and nothing to compare with;
/// `custom` keeps `since` and `until`).
///
/// ```swift
/// let parameters = try ReportParameters(FormParameters.decode(request.uri.query), now: clock.nowMilliseconds())
/// let report = try await source.readReport(for: parameters.query, comparison: parameters.comparison)
/// ```
struct ReportParameters: Sendable, Hashable {
    /// The report's query; with a comparison, both bounds are set (the 7 days ending now without them).
    var query: ReportQuery
    /// `compare=previous`, or `nil`.
    var comparison: ReportComparison?

    /// The parameters of a request; `now` (ms since the Unix epoch) ends the default window of a comparison.
    /// - Throws: ``EventServerError`` (400) naming the parameter that is not valid.
    init(_ parameters: Parameters, now: Int64) throws(EventServerError) {
        let tz = parameters.get("tz") ?? "UTC"
        guard let zone = ReportTimeZone(tz) else {
            throw EventServerError(.badRequest, "tz '\(tz)' is not a time zone name (Europe/Paris, UTC) or an offset")
        }
        var top: Int?
        if let text = parameters.get("top") {
            guard let value = Int(text), value >= 0 else {
                throw EventServerError(.badRequest, "top must be 0 or more, not '\(text)'")
            }
            top = value
        }
        var query = ReportQuery(
            since: try Self.time("since", in: parameters, zone: zone),
            until: try Self.time("until", in: parameters, zone: zone), ref: try Self.filter("ref", in: parameters),
            refererApp: try Self.filter("referer_app", in: parameters),
            sourceHost: try Self.filter("source_host", in: parameters), link: try Self.filter("link", in: parameters),
            timeZone: zone, top: top)
        var period: DashboardView.Period?
        if let text = parameters.get("period") {
            guard let value = DashboardView.Period(rawValue: text) else {
                throw EventServerError(.badRequest, "period must be today, 7d, 30d, all or custom, not '\(text)'")
            }
            period = value
            if let window = DashboardView(parameters: ["period": text]).window(now: now, zone: zone) {
                query.since = window.since
                query.until = window.until
            } else if value == .all {
                query.since = nil
                query.until = nil
            }
        }
        if let since = query.since, let until = query.until, until < since {
            throw EventServerError(.badRequest, "until is before since: give a window that ends after it starts")
        }
        var comparison: ReportComparison?
        if let text = parameters.get("compare"), !text.isEmpty, text != "none", period != .all {
            guard let value = ReportComparison(rawValue: text) else {
                throw EventServerError(.badRequest, "compare must be 'previous' or 'none', not '\(text)'")
            }
            do throws(ReportComparison.WindowError) {
                query = try value.window(for: query, now: now)
            } catch {
                throw EventServerError(.badRequest, "compare=\(text): \(error.description)")
            }
            comparison = value
        }
        self.query = query
        self.comparison = comparison
    }

    /// The time of parameter `name` in `zone`, `nil` without one.
    /// - Throws: ``EventServerError`` (400) for a value that is no time, or one outside ``EventTime/supportedRange``.
    private static func time(
        _ name: String, in parameters: Parameters, zone: ReportTimeZone
    ) throws(EventServerError) -> Int64? {
        guard let value = parameters.get(name) else { return nil }
        guard let milliseconds = zone.milliseconds(of: value), EventTime.supportedRange.contains(milliseconds) else {
            throw EventServerError(
                .badRequest,
                "\(name) '\(value)' is not an RFC 3339 timestamp or a YYYY-MM-DD date of the years 0001 to 9999")
        }
        return milliseconds
    }

    /// The filter value of parameter `name`, `nil` without one.
    /// - Throws: ``EventServerError`` (400) for a value holding a NUL: no stored value holds one (the intake refuses
    ///   it), and PostgreSQL refuses one in a query's text.
    private static func filter(_ name: String, in parameters: Parameters) throws(EventServerError) -> String? {
        guard let value = parameters.get(name) else { return nil }
        guard !value.utf8.contains(0) else {
            throw EventServerError(.badRequest, "\(name) must not hold the character U+0000 (%00)")
        }
        return value
    }
}
