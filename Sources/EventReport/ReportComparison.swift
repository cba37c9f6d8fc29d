import EventStoreInterface
import Foundation
import MeasurementEvents

/// What a report is compared with (docs/cli.md, "Comparison with the previous period"): `previous`, the window
/// of the same length just before, `[since - (until - since), since)`, with the same filters and time zone.
///
/// ```swift
/// let query = try ReportComparison.previous.window(for: ReportQuery(), now: now)  // the 7 days ending now
/// let report = try await source.readReport(for: query, comparison: .previous)
/// print(report.alerts ?? [])
/// ```
public enum ReportComparison: String, Sendable, Hashable, CaseIterable {
    /// The window of the same length just before the report's.
    case previous

    /// The length of the window when the query gives neither bound: 7 days.
    public static let defaultSpan: Int64 = 7 * 86_400_000

    /// Why a window cannot be compared.
    public struct WindowError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// `query` with both bounds set, as a comparison needs them: without `since` and `until`, the `span` ending
    /// `now` (7 days by default; `alstats alerts` uses 24 hours); with `since` only, until `now`; with `until` only,
    /// the `span` before it.
    /// - Throws: ``WindowError`` when the window is empty (`since` at or after `until`), or when the window before it
    ///   would start before the year 0001 (``EventTime/supportedRange``: no time there can be written).
    public func window(
        for query: ReportQuery, now: Int64, span: Int64 = ReportComparison.defaultSpan
    ) throws(WindowError) -> ReportQuery {
        var query = query
        switch (query.since, query.until) {
        case (nil, nil):
            query.until = now
            query.since = now - span
        case (_?, nil): query.until = now
        case (nil, let until?): query.since = until - span
        case (_?, _?): break
        }
        guard let since = query.since, let until = query.until, since < until else {
            throw WindowError(description: "a comparison needs a window whose start is before its end")
        }
        guard since - (until - since) >= EventTime.supportedRange.lowerBound else {
            throw WindowError(
                description: "the window before this one would start before the year 0001: give a later start or a "
                    + "shorter window")
        }
        return query
    }

    /// The query of the window `query` is compared with: the same filters, time zone and `top`, the window
    /// `[since - (until - since), since)`; `nil` when `query` lacks a bound (see ``window(for:now:)``).
    public func comparedQuery(for query: ReportQuery) -> ReportQuery? {
        guard let since = query.since, let until = query.until, since < until else { return nil }
        var previous = query
        previous.since = since - (until - since)
        previous.until = since
        return previous
    }
}

extension ReportSource {
    /// The report for `query`, with `comparison`: the report of the compared window as ``Report/previous`` and
    /// the ``Report/alerts``, from two reads of ``rows(for:)``; without `comparison`, ``readReport(for:)``.
    /// `query` must have both bounds (``ReportComparison/window(for:now:)``); without them there is nothing to
    /// compare and the report has neither `previous` nor `alerts`.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func readReport(
        for query: ReportQuery, comparison: ReportComparison?
    ) async throws(StoreError) -> Report {
        guard let comparison, let previousQuery = comparison.comparedQuery(for: query) else {
            return try await readReport(for: query)
        }
        let current = try await rows(for: query)
        let previousRows = try await rows(for: previousQuery)
        return ReportBuilder().report(from: current, query: query, comparedWith: previousRows, query: previousQuery)
    }
}

extension ReportBuilder {
    /// The report of `rows` for `query`, compared with the report of `previousRows` for `previousQuery`: that
    /// report as ``Report/previous`` and the alerts of ``AlertRule`` between the two.
    public func report(
        from rows: ReportRows, query: ReportQuery, comparedWith previousRows: ReportRows,
        query previousQuery: ReportQuery, rule: AlertRule = AlertRule()
    ) -> Report {
        var report = report(from: rows, query: query)
        report.previousBox = ReportBox(self.report(from: previousRows, query: previousQuery), top: previousQuery.top)
        report.alerts = rule.alerts(now: rows, before: previousRows)
        return report
    }
}

/// The box of ``Report/previous``: a report inside a report, which a struct cannot hold directly; with the number
/// of rows its lists were cut to, for the changes of the text formats (a row missing from a list that was cut is
/// unknown there, not zero), which is no part of the report's value.
final class ReportBox: Sendable, Hashable {
    let report: Report
    let top: Int?

    init(_ report: Report, top: Int? = nil) {
        self.report = report
        self.top = top
    }

    static func == (left: ReportBox, right: ReportBox) -> Bool { left.report == right.report }
    func hash(into hasher: inout Hasher) { hasher.combine(report) }
}
