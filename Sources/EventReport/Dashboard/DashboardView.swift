import EventStoreInterface
import MeasurementEvents

/// What the dashboard at `/report` shows, as its URL says it (docs/dashboard.md): the period, the time zone,
/// the filters and whether the previous period is compared. Every link of the page is this view with one
/// thing changed, so that a view can be bookmarked and shared and the page works without JavaScript.
///
/// ```swift
/// let view = DashboardView(parameters: ["period": "30d", "ref": "mail"])
/// view.adding(.sourceHost, "shop.example.com").href()  // "/report?period=30d&ref=mail&source_host=shop.example.com"
/// ```
public struct DashboardView: Sendable, Hashable {
    /// The period picker's choices.
    public enum Period: String, Sendable, CaseIterable {
        /// From local midnight of today (in the view's time zone) to now.
        case today
        /// The 7 days ending now.
        case week = "7d"
        /// The 30 days ending now.
        case month = "30d"
        /// Every event, no bound.
        case all
        /// The `since` and `until` of the URL (either may be absent: no bound).
        case custom

        /// The picker's label.
        public var label: String {
            switch self {
            case .today: "Today"
            case .week: "7 days"
            case .month: "30 days"
            case .all: "All time"
            case .custom: "Custom"
            }
        }
    }

    /// A dimension a row of the report can be filtered by, with its query parameter name.
    public enum Dimension: String, Sendable, CaseIterable {
        case ref
        case refererApp = "referer_app"
        case sourceHost = "source_host"
        case link

        /// The chip's label.
        public var label: String {
            switch self {
            case .ref: "ref"
            case .refererApp: "referer app"
            case .sourceHost: "source host"
            case .link: "link"
            }
        }
    }

    /// The window.
    public var period: Period
    /// The custom window's bounds as written in the URL (`YYYY-MM-DD` or RFC 3339); only for ``Period/custom``.
    public var since: String?
    public var until: String?
    /// The time zone parameter as given (`UTC` when absent).
    public var timeZone: String
    /// The active filters, at most one value per dimension.
    public var filters: [Dimension: String]
    /// Whether the previous period is compared (on unless the URL says `compare=none`).
    public var compare: Bool

    /// The view of a request's query parameters: `period` (`today`, `7d`, `30d`; `custom` or absent with
    /// `since`/`until`), `since`, `until`, `tz`, `compare` (`previous`, the default, or `none`) and a filter per
    /// dimension. Values are taken as they are; the report query checks them (``ReportTimeZone``, dates).
    public init(parameters: [String: String]) {
        let since = parameters["since"].flatMap { $0.isEmpty ? nil : $0 }
        let until = parameters["until"].flatMap { $0.isEmpty ? nil : $0 }
        if let period = parameters["period"].flatMap(Period.init(rawValue:)) {
            self.period = period
        } else {
            self.period = since == nil && until == nil ? .week : .custom
        }
        self.since = period == .custom ? since : nil
        self.until = period == .custom ? until : nil
        // Custom dates without either bound are every event.
        if self.period == .custom, self.since == nil, self.until == nil { self.period = .all }
        self.timeZone = parameters["tz"].flatMap { $0.isEmpty ? nil : $0 } ?? "UTC"
        var filters: [Dimension: String] = [:]
        for dimension in Dimension.allCases {
            if let value = parameters[dimension.rawValue], !value.isEmpty { filters[dimension] = value }
        }
        self.filters = filters
        self.compare = parameters["compare"] != "none"
    }

    /// The window of ``period`` at the instant `now` (ms since the Unix epoch) in `zone`; `nil` for
    /// ``Period/custom``, whose bounds the URL gives, and for ``Period/all``.
    public func window(now: Int64, zone: ReportTimeZone) -> (since: Int64, until: Int64)? {
        let day: Int64 = 86_400_000
        switch period {
        case .today:
            return (zone.milliseconds(of: zone.date(of: now)) ?? now - day, now)
        case .week: return (now - 7 * day, now)
        case .month: return (now - 30 * day, now)
        case .all, .custom: return nil
        }
    }

    /// Whether the window reaches the present, so that the page refreshes itself: every period but a custom
    /// one with an `until`.
    public var includesNow: Bool {
        period != .custom || until == nil
    }

    /// The query parameters of this view, in a fixed order, leaving out defaults.
    public var parameters: [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        if period == .custom {
            if let since { items.append(("since", since)) }
            if let until { items.append(("until", until)) }
        } else if period != .week {
            items.append(("period", period.rawValue))
        }
        if timeZone != "UTC" { items.append(("tz", timeZone)) }
        for dimension in Dimension.allCases {
            if let value = filters[dimension] { items.append((dimension.rawValue, value)) }
        }
        if !compare { items.append(("compare", "none")) }
        return items
    }

    /// The parameters of `/api/report` for this view: the period and comparison said explicitly (the API's
    /// defaults are not the dashboard's), then the window, time zone and filters.
    public var apiParameters: [(name: String, value: String)] {
        var items = parameters.filter { $0.name != "period" && $0.name != "compare" }
        items.insert(("period", period.rawValue), at: 0)
        if compare { items.append(("compare", "previous")) }
        return items
    }

    /// The URL of this view's report in `/api/report` (``apiParameters``), its values percent-encoded (not yet
    /// HTML-escaped): what the dashboard's script polls.
    ///
    /// ```swift
    /// DashboardView(parameters: ["link": "spring sale"]).apiHref
    /// // "/api/report?period=7d&link=spring%20sale&compare=previous"
    /// ```
    public var apiHref: String {
        "/api/report?"
            + apiParameters.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }
            .joined(separator: "&")
    }

    /// The URL of this view under `path`, its values percent-encoded (not yet HTML-escaped).
    public func href(_ path: String = "/report") -> String {
        let query = parameters.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }
        return query.isEmpty ? path : path + "?" + query.joined(separator: "&")
    }

    /// This view with `dimension` filtered to `value`.
    public func adding(_ dimension: Dimension, _ value: String) -> DashboardView {
        var view = self
        view.filters[dimension] = value
        return view
    }

    /// This view without the filter on `dimension`.
    public func removing(_ dimension: Dimension) -> DashboardView {
        var view = self
        view.filters[dimension] = nil
        return view
    }

    /// This view over `period` (a custom period keeps no bounds: the form gives them).
    public func with(period: Period) -> DashboardView {
        var view = self
        view.period = period
        view.since = nil
        view.until = nil
        return view
    }
}
