import EventStoreInterface
import MeasurementEvents

extension DashboardPage {
    /// The page of one hosted link (`/report/links/{slug}`): its funnel over the view's window and its UTC
    /// days (the rows of the bundled `link_funnel` query for the slug: `day`, `hits`, `visitors`,
    /// `crawler_fetches`, `not_found`, `arrivals`). ``view`` carries the period, time zone and other filters;
    /// the slug is the page's path.
    public func renderLink(slug: String, report: Report, days: QueryResult, scriptNonce: String) -> String {
        let path = "/report/links/" + PercentEncoding.encode(slug)
        var body = header(title: "alstats · \(slug)", path: path, rowControls: false)
        body.insert(
            "<p class=\"back\"><a href=\"\(view.href().htmlEscaped)\">← the dashboard</a> · "
                + "<a href=\"\(view.adding(.link, slug).href().htmlEscaped)\">the dashboard filtered to this link</a></p>",
            at: body.count - 1)
        body += linkMain(slug: slug, report: report, days: days)
        body += footer(scriptNonce: scriptNonce)
        return HTMLRenderer.page(title: "alstats · \(slug)", body: body, scriptNonce: scriptNonce)
    }

    /// Only the `<main>` of ``renderLink(slug:report:days:scriptNonce:)``, for the refresh.
    public func renderLinkMain(slug: String, report: Report, days: QueryResult) -> String {
        linkMain(slug: slug, report: report, days: days).joined(separator: "\n") + "\n"
    }

    func linkMain(slug: String, report: Report, days: QueryResult) -> [String] {
        let renderer = renderer()
        let n = ReportText.count
        let link =
            report.links.first { $0.slug == slug }
            ?? ReportRows.Link(slug: slug, hits: 0, visitors: 0, crawlerFetches: 0, notFound: 0, arrivals: 0)
        // The script polls the report of this link alone, as the route reads it: not every event's.
        var lines = ["<main id=\"dashboard\"\(liveAttributes(polling: view.adding(.link, slug)))>"]
        lines += renderer.facts(report)
        let cards: [(id: String, label: String, value: String)] = [
            ("link-hits", "page views (hits)", n(link.hits)), ("link-visitors", "visitors", n(link.visitors)),
            ("link-arrivals", "arrivals in the app", n(link.arrivals)),
            ("link-arrival-rate", "arrival rate", ReportText.percent(link.arrivalRate)),
            ("link-crawlers", "crawler fetches", n(link.crawlerFetches)),
            ("link-not-found", "not found", n(link.notFound)),
            ("link-store-taps", "store taps", n(link.storeTaps.total)),
            ("link-installs", "installs", n(link.installs.total)),
            ("link-install-rate", "install rate", ReportText.percent(link.installRate)),
            ("link-deferred-opens", "deferred opens", n(link.deferredOpens)),
            ("link-median-delay", "median delay to install", ReportText.duration(link.medianDelayMilliseconds)),
        ]
        lines.append("<section class=\"summary\" aria-label=\"Funnel\">")
        for card in cards {
            lines.append(
                "<div class=\"card\"><span class=\"label\">\(card.label.htmlEscaped)</span>"
                    + "<span class=\"number\" id=\"\(card.id)\">\(card.value.htmlEscaped)</span></div>")
        }
        lines.append("</section>")
        lines += renderer.figure(Self.funnelFigure(link))
        let series = LinkDays(days)
        let axis = series.everyDay()
        lines += renderer.figure(
            HTMLRenderer.Figure(
                SVGChart(
                    id: "fig-link-daily", kind: .lines, title: "Page views and arrivals per day", xLabel: "date (UTC)",
                    yLabel: "events", categories: axis.map(\.date),
                    series: [
                        .init(name: "page views (hits)", values: axis.map(\.hits), style: 2),
                        .init(name: "arrivals (al_nav_in)", values: axis.map(\.arrivals), style: 1),
                    ]),
                header: ["date", "hits", "visitors", "crawlers", "not found", "arrivals", "arrival rate"],
                rows: series.days.map { day in
                    [
                        day.date, n(day.hits), n(day.visitors), n(day.crawlerFetches), n(day.notFound), n(day.arrivals),
                        ReportText.percent(day.hits > 0 ? Double(day.arrivals) / Double(day.hits) : nil),
                    ]
                },
                note: "Whole UTC days of the window, from the link rollups (the bundled link_funnel query)."))
        lines.append("</main>")
        return lines
    }
}

extension DashboardPage {
    /// The link's funnel (docs/install.md): page views by people, taps on its store buttons, installs that claimed
    /// its clicks and apps opened on it after their install, beside the arrivals of people who had the app (the
    /// arrivals that were not deferred opens); each with its share of the page views.
    static func funnelFigure(_ link: ReportRows.Link) -> HTMLRenderer.Figure {
        let withApp = max(0, link.arrivals - link.deferredOpens)
        let steps: [(String, Int)] = [
            ("page views", link.hits), ("store taps", link.storeTaps.total), ("installs", link.installs.total),
            ("deferred opens", link.deferredOpens), ("arrivals with the app", withApp),
        ]
        let share = { (count: Int) in ReportText.percent(link.hits > 0 ? Double(count) / Double(link.hits) : nil) }
        return HTMLRenderer.Figure(
            SVGChart(
                id: "fig-link-funnel", kind: .horizontalBars,
                title: "Funnel: page views, store taps, installs, deferred opens; arrivals of people with the app",
                xLabel: "people", yLabel: "step", categories: steps.map(\.0),
                series: [.init(name: "people", values: steps.map(\.1), style: 1)],
                annotations: steps.map { "\(share($0.1)) of page views" }),
            header: ["step", "people", "of page views"],
            rows: steps.map { [$0.0, ReportText.count($0.1), share($0.1)] },
            note: "Without the app, a person taps a store button (the store hop counts it), installs, and the app "
                + "claims the click and opens on the link (a deferred open, counted in the arrivals too); with the "
                + "app, the page's App Link opens it at once (arrivals with the app).")
    }
}

/// A hosted link's days, read off the columns of the `link_funnel` query by name.
struct LinkDays {
    struct Day {
        var date: String
        var hits = 0
        var visitors = 0
        var crawlerFetches = 0
        var notFound = 0
        var arrivals = 0
    }

    /// The days with counts, by date.
    var days: [Day]

    init(_ result: QueryResult) {
        func column(_ name: String) -> Int? { result.columns.firstIndex(of: name) }
        let (date, hits, visitors) = (column("day"), column("hits"), column("visitors"))
        let (crawlers, notFound, arrivals) = (column("crawler_fetches"), column("not_found"), column("arrivals"))
        func count(_ row: [JSONValue], _ index: Int?) -> Int {
            guard let index, index < row.count else { return 0 }
            switch row[index] {
            case .int(let value): return Int(value)
            case .double(let value): return Int(value)
            case .string(let text): return Int(text) ?? 0
            default: return 0
            }
        }
        var byDate: [String: Day] = [:]
        for row in result.rows {
            guard let date, date < row.count, case .string(let text) = row[date] else { continue }
            var day = byDate[text] ?? Day(date: text)
            day.hits += count(row, hits)
            day.visitors += count(row, visitors)
            day.crawlerFetches += count(row, crawlers)
            day.notFound += count(row, notFound)
            day.arrivals += count(row, arrivals)
            byDate[text] = day
        }
        days = byDate.values.sorted { $0.date < $1.date }
    }

    /// Every day from the first to the last (a day without counts at zero), as the report's charts.
    func everyDay() -> [Day] {
        guard let first = days.first.flatMap({ EventTime.days(date: $0.date) }),
            let last = days.last.flatMap({ EventTime.days(date: $0.date) }), last - first < Report.Day.maximumAxisDays
        else { return days }
        var byDate: [String: Day] = [:]
        for day in days { byDate[day.date] = day }
        return (first...last).map { number in
            let date = EventTime.date(days: number)
            return byDate[date] ?? Day(date: date)
        }
    }
}
