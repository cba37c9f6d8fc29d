import MeasurementEvents

/// The formats `alstats report --format` writes.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// Aligned text tables, readable in 100 columns; colour only when asked (a terminal without NO_COLOR).
    case table
    /// The stable JSON contract of docs/cli.md.
    case json
    /// One CSV table, `section,name,metric,value`, one row per number (RFC 4180 quoting).
    case csv
    /// Markdown headings and tables.
    case markdown
    /// One self-contained HTML page: inline SVG charts beside tables of the same numbers, no script.
    case html

    /// The report in this format.
    /// - Parameters:
    ///   - report: the report.
    ///   - colour: use ANSI colour in tables.
    public func render(_ report: Report, colour: Bool = false) -> String {
        switch self {
        case .table: return TableRenderer(colour: colour).render(report)
        case .json: return report.json().jsonText() + "\n"
        case .csv: return CSVRenderer().render(report)
        case .markdown: return MarkdownRenderer().render(report)
        case .html: return HTMLRenderer().render(report)
        }
    }
}

extension Report {
    /// The report as the JSON value of the contract, keys in the contract's order; with a comparison, `previous`
    /// (the whole report of the compared window) and `alerts` last.
    public func json() -> JSONValue {
        guard case .object(var object) = sectionsJSON() else { return sectionsJSON() }
        if let previous { object["previous"] = previous.json() }
        if let alerts { object["alerts"] = .array(alerts.map(\.json)) }
        return .object(object)
    }

    /// The sections of the contract, keys in its order.
    /// Longer than 60 lines on purpose: it reads as the contract itself, one key per line.
    private func sectionsJSON() -> JSONValue {
        func number(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func int(_ value: Int) -> JSONValue { .int(Int64(value)) }
        func milliseconds(_ value: Int64?) -> JSONValue { value.map { .string(ReportText.time($0)) } ?? .null }
        var windowJSON: JSONObject = [
            "since": milliseconds(window.since), "until": milliseconds(window.until),
            "timezone": .string(window.timeZone),
        ]
        // Only once the store was pruned (docs/cli.md, "Retention"): the contract's window is unchanged before.
        if let since = window.rawEventsSince { windowJSON["raw_events_since"] = milliseconds(since) }
        if let since = window.requestedSince { windowJSON["requested_since"] = milliseconds(since) }
        if let until = window.requestedUntil { windowJSON["requested_until"] = milliseconds(until) }
        return .object([
            "window": .object(windowJSON),
            "totals": .object([
                "events": int(totals.events),
                "by_name": .object(JSONObject(ReportText.nameOrder.map { ($0, int(totals.byName[$0, default: 0])) })),
            ]),
            "navigation": .object([
                "attempts": int(navigation.attempts), "succeeded": int(navigation.succeeded),
                "success_rate": number(navigation.successRate),
                "by_type": .object(
                    JSONObject(ReportText.typeOrder.map { ($0, int(navigation.byType[$0, default: 0])) })),
                "failure_reasons": .array(
                    navigation.failureReasons.map { .object(["error": text($0.error), "count": int($0.count)]) }),
                "source_hosts": .array(
                    navigation.sourceHosts.map {
                        .object(["host": text($0.host), "attempts": int($0.attempts), "succeeded": int($0.succeeded)])
                    }),
            ]),
            "back_navigation": .object([
                "attempts": int(backNavigation.attempts), "succeeded": int(backNavigation.succeeded),
                "success_rate": number(backNavigation.successRate),
            ]),
            "referer_apps": .array(
                refererApps.map {
                    .object([
                        "name": text($0.name), "arrivals": int($0.arrivals), "share": number($0.share),
                        "returns": int($0.returns), "return_rate": number($0.returnRate),
                    ])
                }),
            "ref_categories": .array(
                refCategories.map {
                    .object([
                        "ref": text($0.ref), "arrivals": int($0.arrivals), "nav_out_attempts": int($0.navOutAttempts),
                        "nav_out_succeeded": int($0.navOutSucceeded),
                        "nav_out_success_rate": number($0.navOutSuccessRate),
                        "returns": int($0.returns),
                    ])
                }),
            "daily": .array(
                daily.map {
                    .object([
                        "date": .string($0.date), "al_nav_in": int($0.navIn), "al_nav_out": int($0.navOut),
                        "al_ref_back_out": int($0.refBackOut), "nav_out_success_rate": number($0.navOutSuccessRate),
                    ])
                }),
            "completeness": .object([
                "dropped": int(completeness.dropped), "rejected": int(completeness.rejected),
                "altered": int(completeness.altered),
                "by_reason": .object(
                    JSONObject(completeness.byReason.sorted { $0.key < $1.key }.map { ($0.key, int($0.value)) })),
                "not_filtered_by": .array(completeness.notFilteredBy.map { .string($0) }),
            ]),
            "links": .array(links.map(\.json)),
            "installs": firstOpens.json,
        ])
    }
}

extension Report.Alert {
    /// The alert as docs/cli.md gives it: `dimension`, `value`, `measure`, `now`, `before`, `top_failure` when
    /// there is one, and `explains`, the alerts it explains (an empty list on most).
    public var json: JSONValue {
        func period(_ period: Period) -> JSONValue {
            .object([
                "attempts": .int(Int64(period.attempts)), "succeeded": .int(Int64(period.succeeded)),
                "rate": .double(period.rate),
            ])
        }
        var object: JSONObject = [
            "dimension": .string(dimension.rawValue), "value": value.map(JSONValue.string) ?? .null,
            "measure": .string(measure.rawValue), "now": period(now), "before": period(before),
        ]
        if let topFailure {
            object["top_failure"] = .object([
                "error": topFailure.error.map(JSONValue.string) ?? .null, "now": .int(Int64(topFailure.now)),
                "before": .int(Int64(topFailure.before)),
            ])
        }
        object["explains"] = .array(explains.map(\.json))
        return .object(object)
    }
}
