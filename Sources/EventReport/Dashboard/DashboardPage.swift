import EventStoreInterface
import MeasurementEvents

/// The dashboard at `/report` (docs/dashboard.md): the report's figures under a period picker and the active
/// filters as removable chips, every row a link that adds its filter, and a small script that refreshes the
/// figures in place while the period includes now. Every state is a URL (``DashboardView``), so the page
/// works through its links without JavaScript, and a view can be bookmarked.
///
/// Escaping is the report's: every value a client sent is escaped text in the HTML; the script carries no
/// data (it reads the two URLs it fetches from `data-` attributes, escaped like any other attribute).
public struct DashboardPage: Sendable {
    /// What the page shows.
    public var view: DashboardView
    /// Seconds between two refreshes while the period includes now.
    public var refreshSeconds: Int

    /// A page of `view`, refreshing every `refreshSeconds` (30 by default).
    public init(view: DashboardView, refreshSeconds: Int = 30) {
        self.view = view
        self.refreshSeconds = max(1, refreshSeconds)
    }

    /// The whole page for `report` (the report of ``view``). `scriptNonce` is the Content-Security-Policy nonce
    /// that lets the page's own script, and no other, run: fresh random text for each response.
    public func render(_ report: Report, scriptNonce: String) -> String {
        var body = header(title: "alstats dashboard", path: "/report")
        body += main(report)
        body += footer(scriptNonce: scriptNonce)
        return HTMLRenderer.page(title: "alstats dashboard", body: body, scriptNonce: scriptNonce)
    }

    /// Only the `<main>` element of ``render(_:scriptNonce:)``: what the script fetches to refresh the figures.
    public func renderMain(_ report: Report) -> String {
        main(report).joined(separator: "\n") + "\n"
    }

    /// The URL the script of the dashboard polls: `/api/report` of ``DashboardView/apiParameters``
    /// (``DashboardView/apiHref``). A hosted link's page polls its view filtered to the link.
    public var apiHref: String { view.apiHref }

    // MARK: Parts

    func renderer() -> HTMLRenderer { HTMLRenderer(view: view) }

    /// The title, the period picker (links and a form for custom dates, which works without a script) and the
    /// active filters as chips, each a link to the view without it. With `rowControls` (the dashboard, not a
    /// link's page, whose rows filter nothing and which shows no comparison), the hint that a row adds a filter and
    /// the link that turns the comparison on or off.
    func header(title: String, path: String, rowControls: Bool = true) -> [String] {
        var lines = [
            "<header class=\"dashboard\">",
            "<h1><a href=\"\(view.href(path).htmlEscaped)\">\(title.htmlEscaped)</a></h1>",
        ]
        lines.append("<nav class=\"periods\" aria-label=\"Period\">")
        for period in DashboardView.Period.allCases where period != .custom {
            let current = view.period == period ? " aria-current=\"page\"" : ""
            lines.append(
                "<a href=\"\(view.with(period: period).href(path).htmlEscaped)\"\(current)>\(period.label.htmlEscaped)</a>"
            )
        }
        lines.append("</nav>")
        lines.append("<form class=\"custom\" method=\"get\" action=\"\(path.htmlEscaped)\">")
        func field(_ name: String, _ label: String, _ type: String, _ value: String?) -> String {
            "<label>\(label.htmlEscaped) <input type=\"\(type)\" name=\"\(name)\" value=\"\((value ?? "").htmlEscaped)\"></label>"
        }
        lines.append(field("since", "from", "date", view.since.map { String($0.prefix(10)) }))
        lines.append(field("until", "to", "date", view.until.map { String($0.prefix(10)) }))
        lines.append(field("tz", "time zone", "text", view.timeZone))
        for dimension in DashboardView.Dimension.allCases {
            if let value = view.filters[dimension] {
                lines.append("<input type=\"hidden\" name=\"\(dimension.rawValue)\" value=\"\(value.htmlEscaped)\">")
            }
        }
        if !view.compare { lines.append("<input type=\"hidden\" name=\"compare\" value=\"none\">") }
        lines += ["<button type=\"submit\">Show</button>", "</form>"]
        lines.append("<p class=\"chips\" aria-label=\"Filters\">")
        if view.filters.isEmpty, rowControls {
            lines.append("<span class=\"muted\">No filter: click a row to add one.</span>")
        }
        for dimension in DashboardView.Dimension.allCases {
            guard let value = view.filters[dimension] else { continue }
            lines.append(
                "<a class=\"chip\" data-dimension=\"\(dimension.rawValue)\" href=\"\(view.removing(dimension).href(path).htmlEscaped)\" "
                    + "title=\"Remove this filter\">\(dimension.label.htmlEscaped): <b>\(value.htmlEscaped)</b> "
                    + "<span aria-hidden=\"true\">×</span><span class=\"sr\"> (remove)</span></a>")
        }
        if rowControls {
            var toggled = view
            toggled.compare.toggle()
            lines.append(
                "<a class=\"toggle\" href=\"\(toggled.href(path).htmlEscaped)\">"
                    + (view.compare ? "Hide the comparison" : "Compare with the previous period") + "</a>")
        }
        if let slug = view.filters[.link] {
            lines.append(
                "<a class=\"toggle\" href=\"\(view.removing(.link).href("/report/links/" + PercentEncoding.encode(slug)).htmlEscaped)\">"
                    + "The page of this link</a>")
        }
        lines += ["</p>", "</header>"]
        return lines
    }

    /// The figures: the alerts, the window and completeness, the totals, every chart and its table, the source
    /// hosts.
    func main(_ report: Report) -> [String] {
        let renderer = renderer()
        var lines = ["<main id=\"dashboard\"\(liveAttributes(polling: view))>"]
        lines += renderer.alerts(report)
        lines += renderer.facts(report)
        lines += renderer.summary(report)
        for figure in renderer.figures(report) { lines += renderer.figure(figure) }
        lines += renderer.sourceHosts(report)
        lines.append("</main>")
        return lines
    }

    /// The attributes that let the script refresh `<main>`, only while the window includes now: it polls the
    /// report of `api` (the page's view, with the filters of what the page shows) and fetches this page's `<main>`.
    func liveAttributes(polling api: DashboardView) -> String {
        guard view.includesNow else { return "" }
        var part = view.parameters.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }
        part.append("part=main")
        return " data-refresh=\"\(refreshSeconds)\" data-api=\"\(api.apiHref.htmlEscaped)\" "
            + "data-part=\"\(("?" + part.joined(separator: "&")).htmlEscaped)\""
    }

    func footer(scriptNonce: String) -> [String] {
        [
            "<footer><p>The numbers are those of <code>/api/report</code> with the same parameters"
                + (view.includesNow ? "; they refresh every \(refreshSeconds) s while the period includes now." : ".")
                + "</p></footer>",
            "<script nonce=\"\(scriptNonce.htmlEscaped)\">", DashboardPage.script, "</script>",
        ]
    }
}
