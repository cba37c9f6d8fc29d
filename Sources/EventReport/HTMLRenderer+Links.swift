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

    /// The install path per link (docs/install.md): people's taps on its store buttons, the installs that claimed
    /// its clicks and the apps opened on it after their install, with the install rate and median delay beside each
    /// bar; the note says the window's first opens, attributed and organic.
    func installsFigure(_ report: Report, change: ReportChange) -> Figure {
        let p = ReportText.percent
        let links = report.installingLinks
        let opens = report.firstOpens
        return Figure(
            SVGChart(
                id: "fig-installs", kind: .horizontalBars,
                title: "Installs from hosted links: store taps to deferred opens",
                xLabel: "events", yLabel: "slug", categories: links.map(\.slug),
                series: [
                    .init(name: "store taps", values: links.map(\.storeTaps.total), style: 2),
                    .init(name: "installs", values: links.map(\.installs.total), style: 1),
                    .init(name: "deferred opens", values: links.map(\.deferredOpens), style: 3),
                ],
                annotations: links.map {
                    "install rate \(p($0.installRate)), median delay \(ReportText.duration($0.medianDelayMilliseconds))"
                }),
            header: report.installsTable(change).header, rows: report.installsTable(change).rows,
            note: "Store taps are people's taps on a link page's App Store and Google Play buttons; installs are the "
                + "apps that claimed such a click once installed; deferred opens are those apps opened on the link "
                + "(al_nav_in with deferred 1). First opens in the window: \(ReportText.count(opens.firstOpens)), "
                + "\(ReportText.count(opens.attributed)) attributed to a click, \(ReportText.count(opens.organic)) organic.",
            filter: (.link, links.map(\.slug)))
    }
}
