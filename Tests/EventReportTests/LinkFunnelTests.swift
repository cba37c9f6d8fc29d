import EventStoreSQLite
import Foundation
import HostedLinks
import MeasurementEvents
import TestSupport
import Testing

@testable import EventReport
@testable import EventStoreInterface

/// The report's links section (docs/hosted-links.md, "The funnel in the report"), beyond its agreement with
/// ``LinkOracle`` that ``ReportTests`` checks for every window and filter.
struct LinkFunnelTests {
    static let events = generatedLinkEvents(count: 4_000, seed: 21)
    static let start: Int64 = 1_774_137_600_000

    @Test func theSectionCountsPeopleVisitorsCrawlersUnknownSlugsAndArrivals() throws {
        let database = try ReportDatabase(events: Self.events, publicURLs: [LinkOracle.publicURL])
        let links = try ReportReader(store: database.store).report(for: ReportQuery()).links
        let invite = try #require(links.first { $0.slug == "invite" })
        #expect(invite.hits > 0 && invite.crawlerFetches > 0 && invite.arrivals > 0)
        #expect(invite.visitors > 0 && invite.visitors < invite.hits)
        #expect(links.contains { $0.slug == "Invite" }, "slugs are case-sensitive")
        let gone = try #require(links.first { $0.slug == "gone" })
        #expect(gone.notFound > 0 && gone.hits == 0 && gone.arrivalRate == nil)
        #expect(links.map(\.hits) == links.map(\.hits).sorted(by: >))
    }

    @Test func arrivalsCountOnlyAtARecordedPublicURLIncludingThoseStoredBefore() throws {
        let database = try ReportDatabase(events: Self.events)
        let reader = ReportReader(store: database.store)
        #expect(try reader.report(for: ReportQuery()).links.allSatisfy { $0.arrivals == 0 })
        try database.store.recordPublicURL(try #require(LinkPublicURL("HTTPS://go.example.com/")))
        try database.store.recordPublicURL(try #require(LinkPublicURL("https://go.example.com")))
        #expect(try database.store.publicURLs() == ["https://go.example.com"])
        let links = try reader.report(for: ReportQuery()).links
        #expect(links == LinkOracle.links(Self.events, query: ReportQuery(), publicURLs: [LinkOracle.publicURL]))
        #expect(links.contains { $0.arrivals > 0 })
    }

    @Test(arguments: [
        ("https://go.example.com", "https://go.example.com"), ("HTTPS://Go.Example.com/", "https://go.example.com"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"), ("https://[::1]:65535", "https://[::1]:65535"),
        ("https://go.example.com:1/", "https://go.example.com:1"),
    ])
    func acceptsAPublicURLThatIsAnOrigin(_ text: String, _ expected: String) {
        #expect(LinkPublicURL(text)?.text == expected)
    }

    /// Not an origin, or one that is no public web address: a user or password (it would be stored and printed on
    /// every page in clear), another scheme, a port out of range or not a number.
    @Test(arguments: [
        "", "go.example.com", "https://", "https://go.example.com/links", "https://a?b", "ht tp://a",
        "https://user:pw@go.example.com", "https://user@go.example.com:8080", "ftp://go.example.com",
        "readly://go.example.com", "https://go.example.com:99999", "https://go.example.com:0",
        "https://go.example.com:",
        "https://go.example.com:80a", "https://:8080", "https://[::1", "https://[]:80",
    ])
    func refusesAPublicURLThatIsNotAnOrigin(_ text: String) {
        #expect(LinkPublicURL(text) == nil)
    }

    @Test func rebuildingTheRollupsFromTheEventsChangesNoCount() throws {
        let database = try ReportDatabase(events: Self.events, publicURLs: [LinkOracle.publicURL])
        let query = ReportQuery(since: Self.start + 86_400_000 + 1, ref: "mail")
        func tables() throws -> [String] {
            try database.store.withConnection { store throws in
                var rows: [String] = []
                for table in ["link_rollup", "link_rollup_day", "link_visitor_day", "link_visitor_count"] {
                    let statement = try store.connection.prepare("SELECT * FROM \(table)")
                    while try statement.step() {
                        rows.append(
                            table + "|"
                                + (0..<statement.columnCount).map { statement.text($0) ?? "NULL" }.joined(
                                    separator: "|"))
                    }
                }
                return rows.sorted()
            }
        }
        let before = try tables()
        let reportBefore = try ReportReader(store: database.store).report(for: query)
        try database.store.rebuildRollups()
        #expect(try tables() == before)
        #expect(try ReportReader(store: database.store).report(for: query) == reportBefore)
        #expect(before.count > 100)
    }

    /// The funnel's counts, that is: the install path reads its own events, through their index (docs/install.md).
    @Test func overWholeDaysTheSectionReadsOnlyRollups() throws {
        let database = try ReportDatabase(events: Self.events, publicURLs: [LinkOracle.publicURL])
        let since = Self.start + 86_400_000
        let until = Self.start + 8 * 86_400_000
        let query = ReportQuery(since: since, until: until)
        func funnel(_ links: [Report.Link]) -> [Report.Link] {
            links.map { $0.adding(ReportRows.LinkInstalls(slug: $0.slug)) }
                .filter { $0.hits + $0.crawlerFetches + $0.notFound + $0.arrivals > 0 }
        }
        let before = funnel(try ReportReader(store: database.store).report(for: query).links)
        try database.store.withConnection { store throws in
            try store.connection.execute("DELETE FROM events WHERE ts_ms >= \(since) AND ts_ms < \(until)")
        }
        #expect(funnel(try ReportReader(store: database.store).report(for: query).links) == before)
        #expect(before.contains { $0.visitors > 0 })
    }

    @Test func headAndCrawlerHitsAreCrawlerFetchesAndUnknownSlugsAreCounted() throws {
        let hasher = VisitorHasher(now: { Date(timeIntervalSince1970: 1_774_137_600) }, randomKey: { (1, 2) })
        let link = try HostedLink(json: JSONValue.parse(#"{"slug":"invite","web":{"url":"https://a.example/"}}"#))
        let phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"
        let requests = [
            LinkHitRequest(
                method: "GET", slug: "invite", status: 200, query: [("ref", "mail")],
                headers: [("User-Agent", phone)], peerAddress: "203.0.113.77"),
            LinkHitRequest(
                method: "GET", slug: "invite", status: 200, query: [],
                headers: [("User-Agent", phone)], peerAddress: "203.0.113.77"),
            LinkHitRequest(
                method: "HEAD", slug: "invite", status: 200, query: [],
                headers: [("User-Agent", phone)], peerAddress: "203.0.113.78"),
            LinkHitRequest(
                method: "GET", slug: "invite", status: 200, query: [],
                headers: [("User-Agent", "facebookexternalhit/1.1")], peerAddress: "198.51.100.201"),
            LinkHitRequest(
                method: "GET", slug: "nope", status: 404, query: [],
                headers: [("User-Agent", phone)], peerAddress: "203.0.113.79"),
        ]
        let events = requests.enumerated().map { index, request in
            MeasurementEvent(
                id: EventID("hit-\(index)"), name: LinkHitRequest.eventName,
                fields: request.fields(link: request.status == 200 ? link : nil, hasher: hasher),
                timestamp: Self.start + Int64(index) * 1_000)
        }
        let database = try ReportDatabase(events: events)
        let links = try ReportReader(store: database.store).report(for: ReportQuery()).links
        #expect(
            links == [
                Report.Link(slug: "invite", hits: 2, visitors: 1, crawlerFetches: 2, notFound: 0, arrivals: 0),
                Report.Link(slug: "nope", hits: 0, visitors: 0, crawlerFetches: 0, notFound: 1, arrivals: 0),
            ])
        #expect(
            try ReportReader(store: database.store).report(for: ReportQuery(ref: "mail")).links == [
                Report.Link(slug: "invite", hits: 1, visitors: 1, crawlerFetches: 0, notFound: 0, arrivals: 0)
            ])
        for suffix in ["", "-wal", "-shm"] {
            guard let bytes = FileManager.default.contents(atPath: database.path + suffix) else { continue }
            for address in ["203.0.113.77", "203.0.113.78", "198.51.100.201", "203.0.113.79"] {
                #expect(bytes.range(of: Data(address.utf8)) == nil, "\(address) in the database file\(suffix)")
            }
        }
    }

    @Test(arguments: [nil, "mail"])
    func theLinkFunnelQuerySumsToTheReportsSection(_ ref: String?) throws {
        let database = try ReportDatabase(events: Self.events, publicURLs: [LinkOracle.publicURL])
        let section = try ReportReader(store: database.store).report(for: ReportQuery(ref: ref)).links
        let query = try #require(QueryCatalog.query(named: "link_funnel"))
        let result = try QueryCatalog.run(query, parameters: ref.map { ["ref": $0] } ?? [:], on: database.store)
        #expect(
            result.columns == [
                "day", "slug", "hits", "visitors", "crawler_fetches", "not_found", "arrivals", "arrival_rate",
            ])
        var sums: [String: [Int64]] = [:]
        for row in result.rows {
            guard case .string(let slug) = row[1] else { continue }
            let counts = row[2...6].map { value -> Int64 in if case .int(let number) = value { number } else { -1 } }
            sums[slug] = zip(sums[slug] ?? [0, 0, 0, 0, 0], counts).map { $0 + $1 }
        }
        let expected = Dictionary(
            uniqueKeysWithValues: section.map {
                ($0.slug, [$0.hits, $0.visitors, $0.crawlerFetches, $0.notFound, $0.arrivals].map(Int64.init))
            })
        #expect(sums == expected)
        #expect(result.rows.count > section.count)
    }

    /// The report's links query gives the section's counts, and its rate to 4 decimals, as docs/sql.md says of the
    /// bundled queries' rates (the report computes its own, unrounded).
    @Test func theReportLinksQueryRoundsItsRate() throws {
        let database = try ReportDatabase(events: Self.events, publicURLs: [LinkOracle.publicURL])
        let section = try ReportReader(store: database.store).report(for: ReportQuery()).links
        let query = try #require(QueryCatalog.query(named: "report_links"))
        let result = try QueryCatalog.run(query, parameters: [:], on: database.store)
        #expect(result.rows.count == section.count && !section.isEmpty)
        var rated = 0
        for (row, link) in zip(result.rows, section) {
            guard case .double(let rate) = row[6] else { continue }
            rated += 1
            #expect(rate == (Double(link.arrivals) / Double(link.hits) * 10_000).rounded() / 10_000, "\(link.slug)")
        }
        #expect(rated > 0)
    }
}
