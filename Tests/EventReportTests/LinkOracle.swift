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
        let sorted = links.values.filter { $0.hits + $0.crawlerFetches + $0.notFound + $0.arrivals > 0 }
            .sorted { $0.hits != $1.hits ? $0.hits > $1.hits : $0.slug < $1.slug }
        guard let top = query.top else { return sorted }
        return Array(sorted.prefix(top))
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
        if Int.random(in: 0..<100, using: &random) < 65 {
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
        }
        let id = EventID(String(format: "link-%08d", index))
        return MeasurementEvent(id: id, name: name, fields: fields, timestamp: timestamp)
    }
}
