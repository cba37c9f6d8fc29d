#if Server

import EventReport
import EventServer
import EventStoreInterface
import EventStoreSQLite
import Foundation
import HostedLinks
import Hummingbird
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

/// The hosted App Link routes (docs/hosted-links.md): the page and its hits, the admin API, the verified-link files.
@Suite struct LinkRouteTests {
    static let invite = #"""
        {"slug": "invite", "title": "Couchin'", "pass_query": ["referral"],
         "ios": [{"url": "couchin://invite", "app_store_id": "123", "app_name": "Couchin'"}],
         "android": [{"url": "couchin://invite", "package": "com.example.couchin"}],
         "web": {"url": "https://couchin.example/invite"}}
        """#
    static let phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"

    /// Waits until the store holds `count` hits (the recorder sends them every 100 ms, off the response
    /// path); gives up after 20 s so that a lost hit fails the test instead of hanging it.
    static func hits(_ fixture: ServerFixture, count: Int) async throws -> [MeasurementEvent] {
        for _ in 0..<400 {
            let hits = try fixture.storedEvents().values.filter { $0.name == LinkHitRequest.eventName }
            if hits.count >= count { return hits.sorted { $0.timestamp < $1.timestamp || $0.id < $1.id } }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FixtureError("fewer than \(count) hits were stored")
    }

    static func request(_ agent: String, extra: HTTPFields = [:]) -> HTTPFields {
        var fields = extra
        fields[.userAgent] = agent
        return fields
    }

    @Test func thePageCarriesTheLinkAndPassedValuesAndEveryHitIsRecorded() async throws {
        let fixture = ServerFixture()
        let app = try fixture.application { $0.publicURL = "https://go.example.com" }
        try await app.test(.router) { client in
            try await client.execute(
                uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey),
                body: ByteBuffer(string: Self.invite)
            ) { #expect($0.status == .ok) }
            try await client.execute(
                uri: "/l/invite?ref=mail&referral=a%26b%22%3E&other=%3Cscript%3E", method: .get,
                headers: Self.request(Self.phone)
            ) { response in
                let page = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.contains(#"content="couchin://invite?referral=a%26b%22%3E&amp;ref=mail""#))
                #expect(page.contains(#"<meta property="og:url" content="https://go.example.com/l/invite">"#))
                #expect(!page.contains("other") && !withoutOwnScript(page).contains("<script"))
            }
            // An App Links resolver: a phone's User-Agent, and the header that asks for the tags only (a crawler).
            try await client.execute(
                uri: "/l/invite", method: .get,
                headers: Self.request(Self.phone, extra: [HTTPFields.Element.Name("Prefer-Html-Meta-Tags")!: "al"])
            ) { response in
                let page = String(buffer: response.body)
                #expect(page.contains("al:ios:url") && !page.contains("og:title") && !page.contains("<body"))
            }
            try await client.execute(uri: "/l/invite", method: .head, headers: Self.request(Self.phone)) {
                #expect($0.status == .ok && $0.body.readableBytes == 0)
            }
            try await client.execute(uri: "/l/nope", method: .get, headers: Self.request(Self.phone)) {
                #expect($0.status == .notFound && String(buffer: $0.body).contains("nope"))
            }
            let hits = try await Self.hits(fixture, count: 4)
            #expect(hits.map { $0.fields["slug"] } == ["invite", "invite", "invite", "nope"])
            #expect(hits.map { $0.fields["status"] } == ["200", "200", "200", "404"])
            #expect(hits.map { $0.fields["crawler"] } == ["0", "1", "1", "0"], "resolver and HEAD flagged")
            #expect(hits[0].fields["ref"] == "mail" && hits[0].fields["query/referral"] == "a&b\">")
            #expect(hits[0].fields["query/other"] == nil && hits[0].fields["platform"] == "ios")
        }
        let store = try SQLiteEventStore(path: fixture.path, options: .init(create: false))
        #expect(try store.publicURLs() == ["https://go.example.com"])
        let links = try ReportReader(store: store).rows(for: ReportQuery()).links
        #expect(
            links == [
                Report.Link(slug: "invite", hits: 1, visitors: 1, crawlerFetches: 2, notFound: 0, arrivals: 0),
                Report.Link(slug: "nope", hits: 0, visitors: 0, crawlerFetches: 0, notFound: 1, arrivals: 0),
            ])
    }

    @Test func theLinksAPINeedsAnAdminKeyAndRefusesAnInvalidLinkNamingTheField() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            let body = ByteBuffer(string: Self.invite)
            try await client.execute(uri: "/api/links/invite", method: .put, headers: headers(key: nil), body: body) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(
                uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.readKey), body: body
            ) { #expect($0.status == .forbidden) }
            let hostile = #"{"slug": "invite", "ios": [{"url": "javascript:alert(1)"}]}"#
            try await client.execute(
                uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey),
                body: ByteBuffer(string: hostile)
            ) { response in
                #expect(response.status == .unprocessableContent)
                #expect(String(buffer: response.body).contains("ios[0].url"))
            }
            try await client.execute(
                uri: "/api/links/other", method: .put, headers: headers(key: ServerFixture.adminKey), body: body
            ) { #expect($0.status == .unprocessableContent) }
            try await client.execute(
                uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey),
                body: ByteBuffer(string: "{not json")
            ) { #expect($0.status == .badRequest) }
            try await client.execute(
                uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey), body: body
            ) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/links", method: .get, headers: headers(key: ServerFixture.adminKey)) {
                #expect(String(buffer: $0.body).hasPrefix(#"[{"slug":"invite","#))
            }
            try await client.execute(uri: "/l/invite", method: .get, headers: Self.request(Self.phone)) {
                #expect($0.status == .ok)
            }
            try await client.execute(
                uri: "/api/links/invite", method: .delete, headers: headers(key: ServerFixture.adminKey)
            ) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/l/invite", method: .get, headers: Self.request(Self.phone)) {
                #expect($0.status == .notFound, "a deleted link is gone at once")
            }
            try await client.execute(
                uri: "/api/links/invite", method: .get, headers: headers(key: ServerFixture.adminKey)
            ) { #expect($0.status == .notFound) }
        }
    }

    /// A link's JSON past 256 KiB: 413 with a JSON body saying so, as every refusal of the API has.
    @Test func anOversizedLinkIs413WithAJSONBody() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey),
                body: ByteBuffer(string: String(repeating: " ", count: 300_000) + Self.invite)
            ) { response in
                #expect(response.status == .contentTooLarge)
                #expect(String(buffer: response.body).contains("larger than 256 KiB"), "\(response.body)")
            }
        }
    }

    @Test func theVerifiedLinkFilesAreServedAsConfiguredAndOtherwise404() async throws {
        let fixture = ServerFixture()
        let app = try fixture.application { $0.verifiedLinks = VerifiedLinkConfig(iosAppIDs: ["TEAM.com.example"]) }
        try await app.test(.router) { client in
            try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                #expect(String(buffer: response.body).contains(#""appIDs":["TEAM.com.example"]"#))
            }
            try await client.execute(uri: "/.well-known/assetlinks.json", method: .get) {
                #expect($0.status == .notFound)
            }
        }
    }
}

#endif
