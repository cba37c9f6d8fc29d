import Foundation
import MeasurementEvents

@testable import EventReport
@testable import EventStoreInterface

/// An independent computation of the report's links section straight from the events (no rollups, no
/// SQL), by the definitions of docs/hosted-links.md: the reference the store-backed section is checked
/// against.
enum LinkOracle {
    /// The public URL the generated arrivals are recorded under (the workload also writes it in capitals).
    static let publicURL = "https://go.example.com"

    static func links(_ events: [MeasurementEvent], query: ReportQuery, publicURLs: [String]) -> [Report.Link] {
        let kept = ReportOracle.kept(events, query: query)
        var links: [String: Report.Link] = [:]
        var visitors: Set<[String]> = []
        for event in kept {
            if event.name == "alstats_link_hit", let slug = event.fields["slug"] {
                var link =
                    links[slug]
                    ?? Report.Link(
                        slug: slug, hits: 0, visitors: 0, crawlerFetches: 0, notFound: 0, arrivals: 0)
                let crawler = event.fields["crawler"] == "1"
                let status = event.fields["status"] ?? ""
                let ok =
                    (1...9).contains(status.count) && status.allSatisfy { ("0"..."9").contains($0) }
                    && Int(status) == 200
                if crawler {
                    link.crawlerFetches += 1
                } else if ok {
                    link.hits += 1
                    if let visitor = event.fields["visitor"] {
                        let day = String(event.timestamp >= 0 ? event.timestamp / 86_400_000 : -1)
                        visitors.insert([day, slug, visitor])
                    }
                } else {
                    link.notFound += 1
                }
                links[slug] = link
            } else if event.name == EventName.navIn, let target = event.fields[FieldName.targetURL],
                let slug = arrivalSlug(target, publicURLs: publicURLs)
            {
                var link =
                    links[slug]
                    ?? Report.Link(
                        slug: slug, hits: 0, visitors: 0, crawlerFetches: 0, notFound: 0, arrivals: 0)
                link.arrivals += 1
                links[slug] = link
            }
        }
        for visit in visitors { links[visit[1]]?.visitors += 1 }
        links = links.filter { $0.value.hits + $0.value.crawlerFetches + $0.value.notFound + $0.value.arrivals > 0 }
        for (slug, path) in installs(events, query: query, publicURLs: publicURLs) {
            let link =
                links[slug]
                ?? Report.Link(
                    slug: slug, hits: 0, visitors: 0, crawlerFetches: 0, notFound: 0, arrivals: 0)
            links[slug] = link.adding(path)
        }
        let sorted = links.values.sorted { $0.hits != $1.hits ? $0.hits > $1.hits : $0.slug < $1.slug }
        guard let top = query.top else { return sorted }
        return Array(sorted.prefix(top))
    }

    /// The install path per slug by docs/install.md: people's store taps by store, installs by platform, deferred
    /// opens at the link's canonical URL, and the lower middle of the installs' numeric `delay_ms`; only slugs with
    /// any of these counts.
    static func installs(
        _ events: [MeasurementEvent], query: ReportQuery, publicURLs: [String]
    ) -> [String: ReportRows.LinkInstalls] {
        var unfiltered = query
        unfiltered.link = nil
        var paths: [String: ReportRows.LinkInstalls] = [:]
        var delays: [String: [Int64]] = [:]
        func counts(_ counts: inout ReportRows.PlatformCounts, _ platform: String?) -> Bool {
            switch platform {
            case "ios": counts.ios += 1
            case "android": counts.android += 1
            default: return false
            }
            return true
        }
        for event in ReportOracle.kept(events, query: unfiltered, publicURLs: publicURLs) {
            let slug: String?
            switch event.name {
            case EventName.linkStore, EventName.linkInstall: slug = event.fields["slug"]
            case EventName.navIn where event.fields[FieldName.deferred] == "1":
                slug = event.fields[FieldName.targetURL].flatMap { arrivalSlug($0, publicURLs: publicURLs) }
            default: slug = nil
            }
            guard let slug, query.link == nil || query.link == slug else { continue }
            var path = paths[slug] ?? ReportRows.LinkInstalls(slug: slug)
            var counted = false
            switch event.name {
            case EventName.linkStore where event.fields["crawler"] != "1":
                counted = counts(&path.storeTaps, event.fields["platform"])
            case EventName.linkInstall:
                counted = counts(&path.installs, event.fields["platform"])
                if let text = event.fields["delay_ms"], (1...15).contains(text.count),
                    text.allSatisfy({ ("0"..."9").contains($0) }), let delay = Int64(text)
                {
                    delays[slug, default: []].append(delay)
                }
            case EventName.navIn:
                path.deferredOpens += 1
                counted = true
            default: break
            }
            if counted { paths[slug] = path }
        }
        for (slug, values) in delays where paths[slug] != nil {
            let sorted = values.sorted()
            paths[slug]?.medianDelayMilliseconds = sorted[(sorted.count + 1) / 2 - 1]
        }
        return paths
    }

    /// The first opens by docs/install.md: `alstats_first_open` events in the window, `attributed` when the field is
    /// "1"; none with a filter of ref, referer app, source host or link (a first open has none of them).
    static func firstOpens(_ events: [MeasurementEvent], query: ReportQuery) -> ReportRows.FirstOpens {
        guard query.ref == nil, query.refererApp == nil, query.sourceHost == nil, query.link == nil else {
            return ReportRows.FirstOpens()
        }
        let opens = ReportOracle.kept(events, query: query).filter { $0.name == EventName.firstOpen }
        return ReportRows.FirstOpens(
            firstOpens: opens.count, attributed: opens.filter { $0.fields["attributed"] == "1" }.count)
    }

    /// The slug of `target` when it is `<public URL>/l/<slug>`, alone or followed by `?` or `#`, for one of
    /// `publicURLs` (compared case-insensitively, as scheme and host are; the path exactly).
    static func arrivalSlug(_ target: String, publicURLs: [String]) -> String? {
        for url in publicURLs {
            guard target.count > url.count + 3, target.prefix(url.count).lowercased() == url.lowercased(),
                target.dropFirst(url.count).hasPrefix("/l/")
            else { continue }
            let rest = target.dropFirst(url.count + 3)
            let slug = rest.prefix { $0 != "?" && $0 != "#" }
            let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
            if (1...64).contains(slug.count), slug.allSatisfy(allowed.contains) { return String(slug) }
        }
        return nil
    }
}

/// Hits of hosted link pages and App Link arrivals, deterministic for `seed`: people and crawlers, 200 and
/// 404 pages, refs and referer apps, visitors seen again on the same and on other days, and arrivals at
/// canonical link URLs and at URLs that only look like them.
func generatedLinkEvents(
    count: Int, seed: UInt64, start: Int64 = 1_774_137_600_000, days: Int64 = 12
) -> [MeasurementEvent] {
    var random = SeededGenerator(seed: seed)
    let slugs = ["invite", "promo", "spring_sale-2", "Invite"]
    let refs: [String?] = ["feed", "mail", nil, "émoji 🎉"]
    let apps: [String?] = ["Facebook", "Messenger", nil]
    let agents = ["Mozilla/5.0 (iPhone)", "Mozilla/5.0 (Linux; Android 14)", "Twitterbot/1.0", "curl/8"]
    let targets = [
        "https://go.example.com/l/SLUG", "https://GO.Example.com/l/SLUG?referral=7", "https://go.example.com/l/SLUG#x",
        "https://other.example.net/l/SLUG", "https://go.example.com/l/SLUG/more", "https://go.example.com/lx/SLUG",
        "https://go.example.com/l/", "couchin://go.example.com/l/SLUG", "https://go.example.com/l/SL UG",
        "https://go.example.com?q=/l/SLUG", "https://go.example.com/L/SLUG", "https:///l/SLUG",
        "https://go.example.com/l/SLUG?", "https://go.example.com:8443/l/SLUG", "//go.example.com/l/SLUG",
        "https://go.example.com/l/SLUG#/l/x", "h~p://go.example.com/l/SLUG",
    ]
    return (0..<count).map { index in
        let timestamp = start + Int64.random(in: 0..<(days * 86_400_000), using: &random)
        var fields: [String: String] = [:]
        if let ref = refs.randomElement(using: &random)! { fields[FieldName.ref] = ref }
        let slug = slugs.randomElement(using: &random)!
        let name: String
        let kind = Int.random(in: 0..<100, using: &random)
        if kind >= 82 {
            return installPathEvent(index, slug: slug, fields: fields, at: timestamp, random: &random)
        }
        if kind < 57 {
            name = "alstats_link_hit"
            let agent = agents.randomElement(using: &random)!
            let method = Int.random(in: 0..<10, using: &random) == 0 ? "HEAD" : "GET"
            let known = Int.random(in: 0..<8, using: &random) != 0
            fields["slug"] = known ? slug : "gone"
            fields["status"] = known ? "200" : "404"
            fields["crawler"] = method == "HEAD" || agent.hasPrefix("Twitterbot") ? "1" : "0"
            fields["visitor"] = String(format: "%016x", Int.random(in: 0..<40, using: &random))
            if Int.random(in: 0..<10, using: &random) == 0 { fields[FieldName.refererAppName] = "Facebook" }
        } else {
            name = EventName.navIn
            let target = targets.randomElement(using: &random)!
            fields[FieldName.targetURL] = target.replacingOccurrences(of: "SLUG", with: slug)
            if let app = apps.randomElement(using: &random)! { fields[FieldName.refererAppName] = app }
            if Int.random(in: 0..<4, using: &random) == 0 { fields[FieldName.deferred] = "1" }
        }
        let id = EventID(String(format: "link-%08d", index))
        return MeasurementEvent(id: id, name: name, fields: fields, timestamp: timestamp)
    }
}

/// One event of the install path (docs/install.md) for `slug`: a store tap (a person's or a crawler's, of a store
/// or of something else), an install (a numeric `delay_ms`, or not), or a first open (attributed, organic, or
/// without the field).
private func installPathEvent(
    _ index: Int, slug: String, fields: [String: String], at timestamp: Int64, random: inout SeededGenerator
) -> MeasurementEvent {
    var fields = fields
    let name: String
    switch Int.random(in: 0..<10, using: &random) {
    case 0..<5:
        name = EventName.linkStore
        fields["slug"] = slug
        fields["platform"] = ["ios", "android", "android", "web"].randomElement(using: &random)!
        fields["crawler"] = ["0", "0", "0", "1"].randomElement(using: &random)!
        fields["click"] = String(format: "%022d", index)
    case 5..<8:
        name = EventName.linkInstall
        fields["slug"] = slug
        fields["platform"] = ["ios", "android"].randomElement(using: &random)!
        fields["delay_ms"] =
            Int.random(in: 0..<8, using: &random) == 0 ? "soon" : "\(Int.random(in: 0..<9_000_000, using: &random))"
    default:
        name = EventName.firstOpen
        fields = [:]
        if let attributed = ["1", "0", nil].randomElement(using: &random)! { fields["attributed"] = attributed }
    }
    return MeasurementEvent(
        id: EventID(String(format: "link-%08d", index)), name: name, fields: fields, timestamp: timestamp)
}
