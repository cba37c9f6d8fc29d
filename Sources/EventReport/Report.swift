import EventStoreInterface
import MeasurementEvents

/// The report of docs/cli.md ("alstats report"): how outbound App Link navigations fare, which referer apps send
/// people in and how many go back, how each `ref` category performs, day by day, and what is missing.
///
/// A report is a value computed by ``ReportBuilder`` from grouped counts (``ReportRows``), which
/// ``ReportReader`` reads from the store's rollups; renderers turn it into a table, JSON, CSV or Markdown.
///
/// ```swift
/// let store = try SQLiteEventStore(path: "alstats.sqlite", options: .init(create: false))
/// let report = try ReportReader(store: store).report(for: ReportQuery())
/// print(ReportFormat.json.render(report))
/// ```
public struct Report: Sendable, Hashable {
    /// The window the report covers and the time zone of its dates.
    public var window: Window
    /// Events per name.
    public var totals: Totals
    /// Outbound navigations (`al_nav_out`).
    public var navigation: Navigation
    /// Navigations back to the referer (`al_ref_back_out`).
    public var backNavigation: BackNavigation
    /// Per `refererAppName`.
    public var refererApps: [RefererApp]
    /// Per `ref`.
    public var refCategories: [RefCategory]
    /// Per day of the time zone, days with events only.
    public var daily: [Day]
    /// Events that never reached the database, and App Links the library rejected.
    public var completeness: Completeness
    /// The hosted links funnel, one entry per slug with hits or arrivals (docs/hosted-links.md), by hits descending;
    /// each with its install path (docs/install.md).
    public var links: [Link] = []
    /// The apps' first opens after their install, attributed to a hosted link's click or organic (JSON `installs`).
    public var firstOpens = FirstOpens()
    /// The alerts of a comparison (``AlertRule``), most costly first; `nil` without a comparison.
    public var alerts: [Alert]? = nil
    /// The report of the compared window, boxed (a struct cannot hold itself).
    var previousBox: ReportBox? = nil

    /// With a comparison (``ReportComparison``), the whole report of the window it is compared with: what the
    /// same query says for `[since - (until - since), since)`; `nil` without a comparison.
    public var previous: Report? {
        get { previousBox?.report }
        set { previousBox = newValue.map { ReportBox($0) } }
    }

    /// The time window: `since` inclusive, `until` exclusive, in ms since the Unix epoch; `nil` is open.
    public struct Window: Sendable, Hashable {
        public var since: Int64?
        public var until: Int64?
        /// The time zone identifier of the daily dates (`UTC`, `Europe/Paris`, `+05:30`).
        public var timeZone: String
        /// From when raw events exist, when the store was pruned (`alstats prune`; docs/cli.md, "Retention"):
        /// before it the report reads the rollups alone. `nil` when nothing was pruned.
        public var rawEventsSince: Int64? = nil
        /// The start asked for, when it lay before ``rawEventsSince`` inside a 15-minute bucket: ``since`` is then
        /// that bucket's start, as the rollups can only count whole buckets there. `nil` when it was not moved.
        public var requestedSince: Int64? = nil
        /// The end asked for, when it was moved to its bucket's start as ``requestedSince`` says.
        public var requestedUntil: Int64? = nil
    }

    /// Event counts.
    public struct Totals: Sendable, Hashable {
        /// Every event, once per id.
        public var events: Int
        /// `al_nav_in`, `al_nav_out`, `al_ref_back_out`, and `other` for every other name.
        public var byName: [String: Int]
    }

    /// Outbound navigation.
    public struct Navigation: Sendable, Hashable {
        public var attempts: Int
        public var succeeded: Int
        /// `succeeded / attempts`, `nil` without attempts.
        public var successRate: Double?
        /// Attempts by `type`: `app`, `web`, `fail`.
        public var byType: [String: Int]
        /// Failed attempts (success other than "1") by `error`, most first.
        public var failureReasons: [FailureReason]
        /// Attempts by `sourceURLHost`, most first.
        public var sourceHosts: [SourceHost]
    }

    /// One failure reason.
    public struct FailureReason: Sendable, Hashable {
        public var error: String?
        public var count: Int
    }

    /// One source host.
    public struct SourceHost: Sendable, Hashable {
        public var host: String?
        public var attempts: Int
        public var succeeded: Int
    }

    /// Back to the referer.
    public struct BackNavigation: Sendable, Hashable {
        public var attempts: Int
        public var succeeded: Int
        public var successRate: Double?
    }

    /// One referer app.
    public struct RefererApp: Sendable, Hashable {
        /// `refererAppName`, `nil` for events without one.
        public var name: String?
        /// `al_nav_in` events.
        public var arrivals: Int
        /// `arrivals` / all arrivals, `nil` when there are none.
        public var share: Double?
        /// `al_ref_back_out` events.
        public var returns: Int
        /// `returns / arrivals`, `nil` without arrivals.
        public var returnRate: Double?
    }

    /// One `ref` category.
    public struct RefCategory: Sendable, Hashable {
        public var ref: String?
        public var arrivals: Int
        public var navOutAttempts: Int
        public var navOutSucceeded: Int
        public var navOutSuccessRate: Double?
        public var returns: Int
    }

    /// One day of the time zone.
    public struct Day: Sendable, Hashable {
        /// `YYYY-MM-DD` in the report's time zone.
        public var date: String
        public var navIn: Int
        public var navOut: Int
        public var refBackOut: Int
        public var navOutSuccessRate: Double?
        /// Outbound navigations that succeeded (`success == "1"`).
        public var navOutSucceeded: Int
        /// Outbound navigations by `type`: `app`, `web`, `fail` (for charts; not part of the JSON contract).
        public var navOutByType: [String: Int]
    }

    /// What is missing.
    public struct Completeness: Sendable, Hashable {
        /// Events lost after they were accepted (full buffers, failed writes).
        public var dropped: Int
        /// Events refused before delivery, plus App Links the library rejected.
        public var rejected: Int
        /// Events stored with a value changed beyond the documented rules (a value replaced whole by
        /// `REDACTED` because it hid a secret in text that did not parse).
        public var altered: Int
        /// Both, by reason.
        public var byReason: [String: Int]
        /// The filters of the query that the losses counted by the store do not follow, by their query parameter
        /// names (`ref`, `referer_app`, `source_host`, `link`): a line that never became an event has no field to
        /// filter on, so those counts are of every value. `applink_rejected:*` counts are events and follow them.
        public var notFilteredBy: [String] = []
    }
}
