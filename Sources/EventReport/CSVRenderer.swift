import MeasurementEvents

/// The report as one CSV table, `section,name,metric,value`, one row per number: easy to load into a
/// spreadsheet or a dataframe and filter by section. An empty `name` is a missing value (no ref, no
/// referer app) or a section-wide figure; an empty `value` is a rate without attempts. With a comparison, the
/// previous period's rows follow with their sections prefixed `previous.`, then the alerts (section `alerts`,
/// name `dimension` or `dimension:value`), each cause followed by the alerts it explains, each of which has a row
/// `explained_by` naming its cause.
struct CSVRenderer {
    func render(_ report: Report) -> String {
        var rows: [[String]] = [["section", "name", "metric", "value"]] + self.rows(report)
        if let previous = report.previous {
            rows += self.rows(previous).map { ["previous." + $0[0]] + $0.dropFirst() }
        }
        for cause in report.alerts ?? [] {
            rows += alertRows(cause)
            for explained in cause.explains {
                rows += alertRows(explained)
                rows.append(["alerts", Self.alertName(explained), "explained_by", Self.alertName(cause)])
            }
        }
        return Self.document(rows)
    }

    /// The rows of one alert (section `alerts`, name `dimension` or `dimension:value`).
    private func alertRows(_ alert: Report.Alert) -> [[String]] {
        let name = Self.alertName(alert)
        var rows = [["alerts", name, "measure", alert.measure.rawValue]]
        for (period, counts) in [("now", alert.now), ("before", alert.before)] {
            rows.append(["alerts", name, "\(period)_attempts", String(counts.attempts)])
            rows.append(["alerts", name, "\(period)_succeeded", String(counts.succeeded)])
            rows.append(["alerts", name, "\(period)_rate", counts.rate.description])
        }
        if let failure = alert.topFailure {
            rows.append(["alerts", name, "top_failure", failure.error ?? ""])
            rows.append(["alerts", name, "top_failure_now", String(failure.now)])
            rows.append(["alerts", name, "top_failure_before", String(failure.before)])
        }
        return rows
    }

    /// `all`, or `dimension:value`.
    static func alertName(_ alert: Report.Alert) -> String {
        alert.dimension == .all ? "all" : "\(alert.dimension.rawValue):\(alert.value ?? "")"
    }

    /// The rows of `report`'s sections, without the header.
    private func rows(_ report: Report) -> [[String]] {
        var rows: [[String]] = []
        func add(_ section: String, _ name: String?, _ metric: String, _ value: Int) {
            rows.append([section, name ?? "", metric, String(value)])
        }
        func add(_ section: String, _ name: String?, _ metric: String, _ value: Int?) {
            rows.append([section, name ?? "", metric, value.map { String($0) } ?? ""])
        }
        func add(_ section: String, _ name: String?, _ metric: String, _ value: Double?) {
            rows.append([section, name ?? "", metric, value.map { $0.description } ?? ""])
        }
        rows += windowRows(report.window)
        add("totals", "", "events", report.totals.events)
        for name in ReportText.nameOrder { add("totals", name, "events", report.totals.byName[name, default: 0]) }
        let navigation = report.navigation
        add("navigation", "", "attempts", navigation.attempts)
        add("navigation", "", "succeeded", navigation.succeeded)
        add("navigation", "", "success_rate", navigation.successRate)
        for type in ReportText.typeOrder { add("navigation", type, "by_type", navigation.byType[type, default: 0]) }
        for reason in navigation.failureReasons { add("failure_reasons", reason.error, "count", reason.count) }
        for host in navigation.sourceHosts {
            add("source_hosts", host.host, "attempts", host.attempts)
            add("source_hosts", host.host, "succeeded", host.succeeded)
        }
        add("back_navigation", "", "attempts", report.backNavigation.attempts)
        add("back_navigation", "", "succeeded", report.backNavigation.succeeded)
        add("back_navigation", "", "success_rate", report.backNavigation.successRate)
        for app in report.refererApps {
            add("referer_apps", app.name, "arrivals", app.arrivals)
            add("referer_apps", app.name, "share", app.share)
            add("referer_apps", app.name, "returns", app.returns)
            add("referer_apps", app.name, "return_rate", app.returnRate)
        }
        for category in report.refCategories {
            add("ref_categories", category.ref, "arrivals", category.arrivals)
            add("ref_categories", category.ref, "nav_out_attempts", category.navOutAttempts)
            add("ref_categories", category.ref, "nav_out_succeeded", category.navOutSucceeded)
            add("ref_categories", category.ref, "nav_out_success_rate", category.navOutSuccessRate)
            add("ref_categories", category.ref, "returns", category.returns)
        }
        for day in report.daily {
            add("daily", day.date, EventName.navIn, day.navIn)
            add("daily", day.date, EventName.navOut, day.navOut)
            add("daily", day.date, EventName.refBackOut, day.refBackOut)
            add("daily", day.date, "nav_out_success_rate", day.navOutSuccessRate)
        }
        for link in report.links {
            for (metric, value) in link.counts { add("links", link.slug, metric, value) }
            add("links", link.slug, "arrival_rate", link.arrivalRate)
            for (metric, value) in link.installMetrics { add("links", link.slug, metric, value) }
            add("links", link.slug, "install_rate", link.installRate)
        }
        add("installs", "", "first_opens", report.firstOpens.firstOpens)
        add("installs", "", "attributed", report.firstOpens.attributed)
        add("installs", "", "organic", report.firstOpens.organic)
        return rows + completenessRows(report.completeness)
    }

    /// The window's rows: its edges and time zone, and, in a pruned store, from when raw events exist and the edges
    /// asked for when one was read from its bucket's start.
    private func windowRows(_ window: Report.Window) -> [[String]] {
        var rows = [
            ["window", "", "since", window.since.map(ReportText.time) ?? ""],
            ["window", "", "until", window.until.map(ReportText.time) ?? ""],
            ["window", "", "timezone", window.timeZone],
        ]
        for (metric, value) in [
            ("raw_events_since", window.rawEventsSince), ("requested_since", window.requestedSince),
            ("requested_until", window.requestedUntil),
        ] {
            if let value { rows.append(["window", "", metric, ReportText.time(value)]) }
        }
        return rows
    }

    /// The completeness rows: the losses by kind and by reason, and the filters the losses do not follow.
    private func completenessRows(_ completeness: Report.Completeness) -> [[String]] {
        var rows = [
            ["completeness", "", "dropped", String(completeness.dropped)],
            ["completeness", "", "rejected", String(completeness.rejected)],
            ["completeness", "", "altered", String(completeness.altered)],
        ]
        for (reason, count) in completeness.byReason.sorted(by: { $0.key < $1.key }) {
            rows.append(["completeness", reason, "by_reason", String(count)])
        }
        for filter in completeness.notFilteredBy { rows.append(["completeness", filter, "not_filtered_by", ""]) }
        return rows
    }

    /// Rows as CSV lines ending in CRLF, every field quoted as needed.
    static func document(_ rows: [[String]]) -> String {
        rows.map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
