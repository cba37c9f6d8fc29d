import EventStoreInterface
import MeasurementEvents

/// The report as one self-contained HTML page: the window, time zone and completeness at the top, the
/// totals, then a figure per chart (inline SVG from ``SVGChart``) with a table of the same numbers beside
/// it. No script, no external stylesheet, font or image; a Content-Security-Policy forbids them too.
///
/// Every value that comes from events is escaped (``HTMLEscaping``). The numbers are those of
/// `Report.json()`, formatted as in the table output (thousands separators, one-decimal percentages).
struct HTMLRenderer {
    /// The dashboard view the page belongs to: when set, the rows of a dimension link to the view with
    /// their filter added (``DashboardView``); `nil` for the static page of `alstats report --format html`.
    var view: DashboardView?

    /// The ids of the figures, in page order: what the browser check counts. Read off the figures of an
    /// empty report, so that a new figure cannot be left out.
    static var figureIDs: [String] {
        let empty = ReportBuilder().report(from: ReportRows(groups: [], buckets: []), query: ReportQuery())
        return HTMLRenderer().figures(empty).map(\.chart.id)
    }

    /// One chart and the table of its numbers (the first column names the row).
    struct Figure {
        var chart: SVGChart
        var header: [String]
        var rows: [[String]]
        /// A sentence under the table saying what the numbers count, when they need one.
        var note: String?
        /// The dimension the rows are values of, and each row's value (`nil` for the row of events without one):
        /// on the dashboard, a row's first cell links to the view filtered to it.
        var filter: (dimension: DashboardView.Dimension, values: [String?])?

        init(
            _ chart: SVGChart, header: [String], rows: [[String]], note: String? = nil,
            filter: (dimension: DashboardView.Dimension, values: [String?])? = nil
        ) {
            self.chart = chart
            self.header = header
            self.rows = rows
            self.note = note
            self.filter = filter
        }
    }

    func render(_ report: Report) -> String {
        var page = header(report)
        page.append("<main>")
        page += alerts(report)
        page += summary(report)
        for figure in figures(report) {
            page += self.figure(figure)
        }
        page += sourceHosts(report)
        page.append("</main>")
        page.append(
            "<footer><p>Written by <code>alstats report --format html</code>; the numbers are those of "
                + "<code>--format json</code> for the same window and filters.</p></footer>")
        return HTMLRenderer.page(title: "alstats report", body: page)
    }

    /// A whole page around `body`: the head with its Content-Security-Policy and inline style. With a
    /// `scriptNonce`, the policy lets the page's own inline script run (only a script carrying that nonce) and
    /// fetch from its own origin; without, no script runs.
    static func page(title: String, body: [String], scriptNonce: String? = nil) -> String {
        var policy = "default-src 'none'; style-src 'unsafe-inline'"
        if let scriptNonce { policy += "; script-src 'nonce-\(scriptNonce)'; connect-src 'self'" }
        let head = [
            "<!DOCTYPE html>", "<html lang=\"en\">", "<head>", "<meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<meta name=\"color-scheme\" content=\"light dark\">",
            "<meta http-equiv=\"Content-Security-Policy\" content=\"\(policy)\">",
            "<title>\(title.htmlEscaped)</title>", "<style>", HTMLRenderer.style, "</style>", "</head>", "<body>",
        ]
        return (head + body + ["</body>", "</html>"]).joined(separator: "\n") + "\n"
    }

    // MARK: Top of the page

    private func header(_ report: Report) -> [String] {
        ["<header>", "<h1>alstats report</h1>"] + facts(report) + ["</header>"]
    }

    /// The window, time zone and completeness, with the table of losses by reason when there are any.
    func facts(_ report: Report) -> [String] {
        let completeness = report.completeness
        var lines = [
            "<dl class=\"facts\">",
            "<dt>Window</dt><dd id=\"window\">\(ReportText.span(report.window).capitalisedFirst.htmlEscaped)</dd>",
            "<dt>Time zone</dt><dd id=\"timezone\">\(report.window.timeZone.htmlEscaped)</dd>",
            "<dt>Completeness</dt><dd id=\"completeness\">\(ReportText.completeness(completeness).htmlEscaped)</dd>",
            "</dl>",
        ]
        if let retention = ReportText.retention(report.window) {
            lines.insert(
                "<dt>Raw events</dt><dd id=\"raw-events\">\(retention.capitalisedFirst.htmlEscaped)</dd>",
                at: lines.count - 1)
        }
        if !completeness.byReason.isEmpty {
            lines += table(
                id: "completeness-table", caption: "Events dropped or rejected, by reason",
                header: ["reason", "events"],
                rows: completeness.byReason.sorted { $0.key < $1.key }.map { [$0.key, ReportText.count($0.value)] })
        }
        return lines
    }

    func summary(_ report: Report) -> [String] {
        let n = ReportText.count
        let p = ReportText.percent
        let cards: [(id: String, label: String, value: String, detail: String)] = [
            (
                "total-events", "events", n(report.totals.events),
                "\(n(report.totals.byName["other", default: 0])) other"
            ),
            ("total-nav-in", "arrivals (al_nav_in)", n(report.totals.byName[EventName.navIn, default: 0]), ""),
            (
                "total-nav-out", "outbound (al_nav_out)", n(report.navigation.attempts),
                "\(n(report.navigation.succeeded)) succeeded, \(p(report.navigation.successRate))"
            ),
            (
                "total-ref-back-out", "returns (al_ref_back_out)", n(report.backNavigation.attempts),
                "\(n(report.backNavigation.succeeded)) succeeded, \(p(report.backNavigation.successRate))"
            ),
        ]
        let deltas = cardChanges(report)
        var lines = ["<section class=\"summary\" aria-label=\"Totals\">"]
        for (index, card) in cards.enumerated() {
            lines.append(
                "<div class=\"card\"><span class=\"label\">\(card.label.htmlEscaped)</span>"
                    + "<span class=\"number\" id=\"\(card.id)\">\(card.value)</span>"
                    + "<span class=\"detail\">\(card.detail.htmlEscaped)</span>"
                    + (index < deltas.count ? deltas[index] : "") + "</div>")
        }
        lines.append("</section>")
        return lines
    }

    // MARK: Figures

    /// The page's figures in order. Longer than 60 lines on purpose: one declarative list, a chart and its
    /// table per entry, read top to bottom like the page (``figureIDs`` is derived from it).
    func figures(_ report: Report) -> [Figure] {
        let n = ReportText.count
        let p = ReportText.percent
        // With a comparison, each row's figures carry their change against the previous period.
        let change = report.change
        let name = { (value: String?) in value ?? ReportText.none }
        let days = report.daily
        // The charts' time axis: every day from the first to the last, a day without events at zero.
        let axis = Report.Day.everyDay(from: days)
        let zone = report.window.timeZone
        let navigation = report.navigation
        let types = ReportText.typeOrder
        return [
            Figure(
                SVGChart(
                    id: "fig-daily", kind: .lines, title: "Events per day", xLabel: "date (\(zone))", yLabel: "events",
                    categories: axis.map(\.date),
                    series: [
                        .init(name: "arrivals (al_nav_in)", values: axis.map(\.navIn), style: 1),
                        .init(name: "outbound (al_nav_out)", values: axis.map(\.navOut), style: 2),
                        .init(name: "returns (al_ref_back_out)", values: axis.map(\.refBackOut), style: 3),
                    ]),
                header: ["date", "arrivals", "outbound", "returns"],
                rows: days.map { [$0.date, n($0.navIn), n($0.navOut), n($0.refBackOut)] }),
            Figure(
                SVGChart(
                    id: "fig-outbound-daily", kind: .stackedColumns,
                    title: "Outbound navigations per day, by type",
                    xLabel: "date (\(zone))", yLabel: "al_nav_out events", categories: axis.map(\.date),
                    series: [
                        .init(
                            name: "app opened", values: axis.map { $0.navOutByType["app", default: 0] },
                            style: HTMLRenderer.typeStyle("app")),
                        .init(
                            name: "web fallback", values: axis.map { $0.navOutByType["web", default: 0] },
                            style: HTMLRenderer.typeStyle("web")),
                        .init(
                            name: "failed", values: axis.map { $0.navOutByType["fail", default: 0] },
                            style: HTMLRenderer.typeStyle("fail")),
                    ]),
                header: ["date", "attempts", "app", "web", "fail", "success rate"],
                rows: days.map { day in
                    [
                        day.date, n(day.navOut), n(day.navOutByType["app", default: 0]),
                        n(day.navOutByType["web", default: 0]), n(day.navOutByType["fail", default: 0]),
                        p(day.navOutSuccessRate),
                    ]
                }),
            Figure(
                SVGChart(
                    id: "fig-outbound-type", kind: .horizontalBars, title: "Outbound navigations by type",
                    xLabel: "al_nav_out events", yLabel: "type", categories: types,
                    series: [
                        .init(name: "navigations", values: types.map { navigation.byType[$0, default: 0] }, style: 2)
                    ],
                    annotations: types.map { p(navigation.share(ofType: $0)) },
                    categoryStyles: types.map(HTMLRenderer.typeStyle)),
                header: ["type", "navigations", "share"],
                rows: report.outboundTypeRows(change)),
            Figure(
                SVGChart(
                    id: "fig-referer-apps", kind: .horizontalBars, title: "Referer apps: arrivals and returns",
                    xLabel: "events", yLabel: "referer app", categories: report.refererApps.map { name($0.name) },
                    series: [
                        .init(name: "arrivals (al_nav_in)", values: report.refererApps.map(\.arrivals), style: 1),
                        .init(name: "returns (al_ref_back_out)", values: report.refererApps.map(\.returns), style: 3),
                    ],
                    annotations: report.refererApps.map { "return rate \(p($0.returnRate))" }),
                header: ["referer app", "arrivals", "share", "returns", "return rate"],
                rows: report.refererAppRows(change), filter: (.refererApp, report.refererApps.map(\.name))),
            Figure(
                SVGChart(
                    id: "fig-ref-categories", kind: .horizontalBars,
                    title: "Ref categories: arrivals, outbound and returns",
                    xLabel: "events", yLabel: "ref", categories: report.refCategories.map { name($0.ref) },
                    series: [
                        .init(name: "arrivals", values: report.refCategories.map(\.arrivals), style: 1),
                        .init(name: "outbound", values: report.refCategories.map(\.navOutAttempts), style: 2),
                        .init(name: "returns", values: report.refCategories.map(\.returns), style: 3),
                    ],
                    annotations: report.refCategories.map { "out success \(p($0.navOutSuccessRate))" }),
                header: ["ref", "arrivals", "outbound", "out ok", "out success", "returns"],
                rows: report.refCategoryRows(change), filter: (.ref, report.refCategories.map(\.ref))),
            Figure(
                SVGChart(
                    id: "fig-failure-reasons", kind: .horizontalBars, title: "Failure reasons of outbound navigations",
                    xLabel: "failed al_nav_out events", yLabel: "error",
                    categories: navigation.failureReasons.map { name($0.error) },
                    series: [.init(name: "failed", values: navigation.failureReasons.map(\.count), style: 4)]),
                header: ["error", "failed"],
                rows: report.failureReasonRows(change)),
            linksFigure(report, change: change),
            installsFigure(report, change: change),
        ]
    }

    /// The colour class of an outbound navigation's type, the same in every chart: `app` green, `web` orange,
    /// `fail` the failure red (which nothing else uses).
    static func typeStyle(_ type: String) -> Int {
        switch type {
        case "app": 3
        case "web": 2
        default: 4
        }
    }

    /// The most rows a table shows without a scroll box of its own: a longer one (a year of days) scrolls.
    static let scrolledTableRows = 31

    /// The columns from which a figure's table goes under its chart instead of beside it.
    static let wideTableColumns = 5

    /// A `<figure>`: caption, chart, and the table of its numbers (first column names the row).
    func figure(_ figure: Figure) -> [String] {
        let (chart, header) = (figure.chart, figure.header)
        let captionID = "\(chart.id)-caption"
        // A table of many columns gets the panel's whole width, under its chart, so that it does not scroll sideways.
        let kind = header.count >= HTMLRenderer.wideTableColumns ? "chart wide" : "chart"
        var lines = [
            "<figure class=\"\(kind)\" id=\"\(chart.id)\" aria-labelledby=\"\(captionID)\">",
            "<figcaption id=\"\(captionID)\">\(chart.title.htmlEscaped)</figcaption>",
            "<div class=\"plot\">", chart.svg(labelledBy: captionID), "</div>",
        ]
        lines += table(
            id: "\(chart.id)-table", caption: "\(chart.title) (table)", header: header, rows: figure.rows,
            rowLinks: rowLinks(figure.filter))
        if let note = figure.note { lines.append("<p class=\"note\">\(note.htmlEscaped)</p>") }
        lines.append("</figure>")
        return lines
    }

    func sourceHosts(_ report: Report) -> [String] {
        ["<section class=\"hosts\">", "<h2>Source hosts of outbound navigations</h2>"]
            + table(
                id: "source-hosts-table", caption: "Source hosts",
                header: ["host", "attempts", "succeeded", "success rate"], rows: report.sourceHostRows(report.change),
                rowLinks: rowLinks((.sourceHost, report.navigation.sourceHosts.map(\.host))))
            + ["</section>"]
    }

    /// The dashboard links of a table's rows: each row's view with its filter added; `nil` for a row without
    /// a value, and no links at all outside the dashboard.
    func rowLinks(_ filter: (dimension: DashboardView.Dimension, values: [String?])?) -> [String?] {
        guard let view, let filter else { return [] }
        return filter.values.map { value in value.map { view.adding(filter.dimension, $0).href() } }
    }

    /// An accessible table in a region that scrolls sideways when it must, and down only when it has more than
    /// ``scrolledTableRows`` rows; every cell escaped. A row with a link in `rowLinks` (same
    /// order as `rows`) has its first cell as that link.
    func table(id: String, caption: String, header: [String], rows: [[String]], rowLinks: [String?] = []) -> [String] {
        let kind = rows.count > HTMLRenderer.scrolledTableRows ? "table long" : "table"
        var lines = [
            "<div class=\"\(kind)\" role=\"region\" tabindex=\"0\" aria-labelledby=\"\(id)-caption\">",
            "<table id=\"\(id)\">", "<caption id=\"\(id)-caption\">\(caption.htmlEscaped)</caption>",
            "<thead><tr>" + header.map { "<th scope=\"col\">\($0.htmlEscaped)</th>" }.joined() + "</tr></thead>",
            "<tbody>",
        ]
        if rows.isEmpty {
            lines.append("<tr><td colspan=\"\(header.count)\">No events.</td></tr>")
        }
        for (index, row) in rows.enumerated() {
            let link = index < rowLinks.count ? rowLinks[index] : nil
            let cells = row.enumerated().map { column, cell in
                guard column == 0 else { return "<td>\(cell.htmlEscaped)</td>" }
                guard let link else { return "<th scope=\"row\">\(cell.htmlEscaped)</th>" }
                return "<th scope=\"row\"><a class=\"filter\" href=\"\(link.htmlEscaped)\">\(cell.htmlEscaped)</a></th>"
            }
            lines.append("<tr>" + cells.joined() + "</tr>")
        }
        lines += ["</tbody>", "</table>", "</div>"]
        return lines
    }
}

extension Report.Day {
    /// The most days a chart's time axis spans; a longer span keeps only the days with events.
    static let maximumAxisDays: Int64 = 1_000

    /// `days` (sorted, with events) with every day between the first and the last added at zero, so that a
    /// chart's days are evenly spaced in time: 2025-11-22 and 2026-11-28 do not sit side by side.
    static func everyDay(from days: [Report.Day]) -> [Report.Day] {
        guard let first = days.first.flatMap({ EventTime.days(date: $0.date) }),
            let last = days.last.flatMap({ EventTime.days(date: $0.date) }), last - first < maximumAxisDays
        else { return days }
        var byDate: [String: Report.Day] = [:]
        for day in days { byDate[day.date] = day }
        return (first...last).map { number in
            let date = EventTime.date(days: number)
            return byDate[date]
                ?? Report.Day(
                    date: date, navIn: 0, navOut: 0, refBackOut: 0, navOutSuccessRate: nil, navOutSucceeded: 0,
                    navOutByType: Tally.emptyTypes)
        }
    }
}
