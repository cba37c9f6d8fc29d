import EventStoreInterface
import MeasurementEvents

extension Report {
    /// The funnel of one hosted link (``ReportRows/Link``).
    public typealias Link = ReportRows.Link
    /// The apps' first opens (``ReportRows/FirstOpens``).
    public typealias FirstOpens = ReportRows.FirstOpens

    /// The links with an install path (store taps, installs or deferred opens), in the links' order.
    var installingLinks: [Link] {
        links.filter { $0.storeTaps.total + $0.installs.total + $0.deferredOpens > 0 }
    }

    /// The table of the install path per link (docs/install.md), as the table and Markdown renderers show it.
    func installsTable(_ change: ReportChange) -> TextTable {
        TextTable(
            header: ["slug", "store taps", "iOS", "Android", "installs", "install rate", "deferred", "median delay"],
            rows: installingLinks.map { row in
                let prior = change.prior(\.links) { $0.slug == row.slug }
                return [
                    row.slug, change.count(row.storeTaps.total, prior) { $0.storeTaps.total },
                    ReportText.count(row.storeTaps.ios), ReportText.count(row.storeTaps.android),
                    change.count(row.installs.total, prior) { $0.installs.total },
                    change.rate(row.installRate, prior) { $0.installRate },
                    change.count(row.deferredOpens, prior) { $0.deferredOpens },
                    ReportText.duration(row.medianDelayMilliseconds),
                ]
            })
    }

    /// The first opens as a table: attributed, organic and all, each with its share.
    func firstOpensTable(_ change: ReportChange) -> TextTable {
        guard firstOpens.firstOpens > 0 else { return TextTable(header: ["first opens", "apps", "share"], rows: []) }
        let total = firstOpens.firstOpens
        let before = change.previous?.firstOpens
        func row(_ name: String, _ value: Int, _ prior: Int?) -> [String] {
            let text = ReportText.count(value) + (prior.map { " " + ReportChange.percentChange(value, $0) } ?? "")
            return [name, text, ReportText.percent(Double(value) / Double(total))]
        }
        return TextTable(
            header: ["first opens", "apps", "share"],
            rows: [
                row("attributed", firstOpens.attributed, before?.attributed),
                row("organic", firstOpens.organic, before?.organic), row("all", total, before?.firstOpens),
            ])
    }

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
    /// The links with their install paths (a link with only an install path listed too, with no hits), by hits
    /// descending, then slug.
    func links(_ rows: [Report.Link], installs: [ReportRows.LinkInstalls]) -> [Report.Link] {
        var bySlug = Dictionary(rows.map { ($0.slug, $0) }, uniquingKeysWith: { first, _ in first })
        for path in installs {
            let link =
                bySlug[path.slug]
                ?? Report.Link(slug: path.slug, hits: 0, visitors: 0, crawlerFetches: 0, notFound: 0, arrivals: 0)
            bySlug[path.slug] = link.adding(path)
        }
        return bySlug.values.sorted { $0.hits != $1.hits ? $0.hits > $1.hits : $0.slug < $1.slug }
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
        func platforms(_ counts: ReportRows.PlatformCounts) -> JSONValue {
            .object(JSONObject([("ios", .int(Int64(counts.ios))), ("android", .int(Int64(counts.android)))]))
        }
        return .object(
            JSONObject(
                [("slug", .string(slug))] + counts.map { ($0.0, .int(Int64($0.1))) } + [
                    ("arrival_rate", arrivalRate.map(JSONValue.double) ?? .null),
                    ("store_taps", platforms(storeTaps)), ("installs", platforms(installs)),
                    ("deferred_opens", .int(Int64(deferredOpens))),
                    ("install_rate", installRate.map(JSONValue.double) ?? .null),
                    ("median_delay_ms", medianDelayMilliseconds.map(JSONValue.int) ?? .null),
                ]))
    }

    /// The install path's numbers under their CSV metric names (`store_taps_ios`, ...), in the JSON's order.
    var installMetrics: [(String, Int?)] {
        [
            ("store_taps_ios", storeTaps.ios), ("store_taps_android", storeTaps.android),
            ("installs_ios", installs.ios), ("installs_android", installs.android),
            ("deferred_opens", deferredOpens), ("median_delay_ms", medianDelayMilliseconds.map { Int($0) }),
        ]
    }
}

extension ReportRows.FirstOpens {
    /// The report's `installs` object: `first_opens`, `attributed`, `organic`.
    var json: JSONValue {
        .object(
            JSONObject([
                ("first_opens", .int(Int64(firstOpens))), ("attributed", .int(Int64(attributed))),
                ("organic", .int(Int64(organic))),
            ]))
    }
}
