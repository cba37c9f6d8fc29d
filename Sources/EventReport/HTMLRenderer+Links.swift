extension HTMLRenderer {
    /// The hosted links funnel: per slug, people's page views, arrivals in the app and crawler fetches,
    /// with the arrival rate beside each bar and the table of every count (slugs only asked for by mistake,
    /// with nothing but pages not found, are in the table, not in the chart).
    func linksFigure(_ report: Report, change: ReportChange) -> Figure {
        let p = ReportText.percent
        let charted = report.links.filter { $0.hits + $0.arrivals + $0.crawlerFetches > 0 }
        return Figure(
            SVGChart(
                id: "fig-links", kind: .horizontalBars, title: "Hosted links: page views and arrivals in the app",
                xLabel: "events", yLabel: "slug", categories: charted.map(\.slug),
                series: [
                    .init(name: "page views (hits)", values: charted.map(\.hits), style: 2),
                    .init(name: "arrivals (al_nav_in)", values: charted.map(\.arrivals), style: 1),
                    // Grey: a crawler's fetch is no failure, and red is the failures' colour.
                    .init(name: "crawler fetches", values: charted.map(\.crawlerFetches), style: 5),
                ],
                annotations: charted.map { "arrival rate \(p($0.arrivalRate))" }),
            header: ["slug", "hits", "visitors", "crawler fetches", "not found", "arrivals", "arrival rate"],
            rows: report.linksTable(change).rows,
            note: "Hits are page views of /l/{slug} by people (status 200, not a crawler); visitors are distinct "
                + "per UTC day; arrivals are al_nav_in events whose targetURL is the link's canonical URL.",
            filter: (.link, report.links.map(\.slug)))
    }
}
