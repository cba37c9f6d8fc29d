import EventStoreInterface
import MeasurementEvents

extension Report {
    /// The funnel of one hosted link (``ReportRows/Link``).
    public typealias Link = ReportRows.Link

    /// The table of the links section, as the table and Markdown renderers show it.
    func linksTable(_ change: ReportChange) -> TextTable {
        TextTable(
            header: ["slug", "hits", "visitors", "crawlers", "not found", "arrivals", "arrival rate"],
            rows: links.map { row in
                let prior = change.prior(\.links) { $0.slug == row.slug }
                return [
                    row.slug, change.count(row.hits, prior) { $0.hits },
                    change.count(row.visitors, prior) { $0.visitors },
                    change.count(row.crawlerFetches, prior) { $0.crawlerFetches },
                    change.count(row.notFound, prior) { $0.notFound },
                    change.count(row.arrivals, prior) { $0.arrivals },
                    change.rate(row.arrivalRate, prior) { $0.arrivalRate },
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

extension ReportRows.Link {
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
