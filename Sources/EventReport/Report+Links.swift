import MeasurementEvents

extension Report {
    /// The funnel of one hosted link (docs/hosted-links.md, "The funnel in the report"): page views, the people and
    /// crawlers behind them, and the App Link arrivals that followed.
    public struct Link: Sendable, Hashable {
        /// The requested slug.
        public var slug: String
        /// `alstats_link_hit` events with status 200 and crawler 0: people who got the page.
        public var hits: Int
        /// Distinct `visitor` values of those hits per UTC day, summed over the days.
        public var visitors: Int
        /// `alstats_link_hit` events with crawler 1 (link previewers, crawlers, every `HEAD`).
        public var crawlerFetches: Int
        /// `alstats_link_hit` events with crawler 0 and a status other than 200 (an unknown slug: 404).
        public var notFound: Int
        /// `al_nav_in` events whose `targetURL` is the link's canonical URL on a recorded public URL.
        public var arrivals: Int

        /// `arrivals / hits`, `nil` without hits.
        public var arrivalRate: Double? { hits == 0 ? nil : Double(arrivals) / Double(hits) }

        /// Creates a link's funnel.
        public init(slug: String, hits: Int, visitors: Int, crawlerFetches: Int, notFound: Int, arrivals: Int) {
            self.slug = slug
            self.hits = hits
            self.visitors = visitors
            self.crawlerFetches = crawlerFetches
            self.notFound = notFound
            self.arrivals = arrivals
        }

        /// The counts under their JSON names, in the contract's order.
        var counts: [(String, Int)] {
            [
                ("hits", hits), ("visitors", visitors), ("crawler_fetches", crawlerFetches),
                ("not_found", notFound), ("arrivals", arrivals),
            ]
        }

        /// The entry of the report's `links` list.
        var json: JSONValue {
            .object(
                JSONObject(
                    [("slug", .string(slug))] + counts.map { ($0.0, .int(Int64($0.1))) } + [
                        ("arrival_rate", arrivalRate.map(JSONValue.double) ?? .null)
                    ]))
        }
    }

    /// The table of the links section, as the table and Markdown renderers show it.
    func linksTable() -> TextTable {
        let n = ReportText.count
        return TextTable(
            header: ["slug", "hits", "visitors", "crawlers", "not found", "arrivals", "arrival rate"],
            rows: links.map {
                [
                    $0.slug, n($0.hits), n($0.visitors), n($0.crawlerFetches), n($0.notFound), n($0.arrivals),
                    ReportText.percent($0.arrivalRate),
                ]
            })
    }
}

extension ReportBuilder {
    /// The links, by hits descending, then slug.
    func links(_ rows: [Report.Link]) -> [Report.Link] {
        rows.sorted { $0.hits != $1.hits ? $0.hits > $1.hits : $0.slug < $1.slug }
    }
}
