#if Server

import EventStoreSQLite
import Foundation
import HostedLinks
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import EventServer
@testable import EventStoreInterface

/// The rendered pages kept in memory (issue 14): the same request gets the same safe bytes, a changed link
/// never gets an old page, every variant its own page, and the pages stay within their bytes.
@Suite struct LinkPageCacheTests {
    static let hostileLink = #"""
        {"slug": "invite", "title": "\"><script>alert(1)</script>", "pass_query": ["referral"],
         "ios": [{"url": "couchin://invite?q=\"><script>", "app_name": "<b>Couchin'</b>"}],
         "web": {"url": "https://couchin.example/invite"}}
        """#
    static let hostileValue = "%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E%27"

    static func put(_ client: some TestClientProtocol, _ json: String) async throws {
        try await client.execute(
            uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey),
            body: ByteBuffer(string: json)
        ) { #expect($0.status == .ok) }
    }

    static func page(
        _ client: some TestClientProtocol, _ uri: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]
    ) async throws -> (status: HTTPResponse.Status, length: String?, body: String) {
        try await client.execute(uri: uri, method: method, headers: headers) { response in
            (response.status, response.headers[.contentLength], String(buffer: response.body))
        }
    }

    @Test func aPageAskedTwiceWithHostileValuesIsTheSameSafeBytesBothTimes() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await Self.put(client, Self.hostileLink)
            let uri = "/l/invite?ref=\(Self.hostileValue)&referral=\(Self.hostileValue)&other=%3Cscript%3E"
            let first = try await Self.page(client, uri)
            let second = try await Self.page(client, uri)
            #expect(first.status == .ok && second.status == .ok)
            #expect(second.body == first.body, "the cached answer is the rendered one")
            for page in [first.body, second.body] {
                #expect(!withoutOwnScript(page).contains("<script") && !page.contains("<b>") && !page.contains("other"))
                #expect(page.contains("referral=%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E%27"))
                #expect(page.contains("&lt;b&gt;Couchin&#39;&lt;/b&gt;") || page.contains("&lt;b&gt;Couchin&#x27;"))
            }
            let other = try await Self.page(client, "/l/invite?referral=%3Cimg%3E")
            #expect(other.body != first.body && other.body.contains("referral=%3Cimg%3E"))
            #expect(!other.body.contains("<img"))
        }
    }

    @Test func aLinkPutOrDeletedThroughTheAdminAPIIsNeverAnsweredWithItsOldPage() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await Self.put(client, LinkRouteTests.invite)
            #expect(try await Self.page(client, "/l/invite?referral=1").body.contains("<title>Couchin&#39;</title>"))
            try await Self.put(client, LinkRouteTests.invite.replacingOccurrences(of: "Couchin'", with: "Sofa"))
            let changed = try await Self.page(client, "/l/invite?referral=1")
            #expect(changed.body.contains("<title>Sofa</title>") && !changed.body.contains("Couchin"))
            try await client.execute(
                uri: "/api/links/invite", method: .delete, headers: headers(key: ServerFixture.adminKey)
            ) { #expect($0.status == .noContent) }
            #expect(try await Self.page(client, "/l/invite?referral=1").status == .notFound)
        }
    }

    @Test func theFullPageTheMetaTagsOnlyPageAndHEADEachGetTheirOwnAnswer() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await Self.put(client, LinkRouteTests.invite)
            let prefer = HTTPFields.Element.Name("Prefer-Html-Meta-Tags")!
            let tagsOnly = try await Self.page(client, "/l/invite?ref=a", headers: [prefer: "al"])
            let full = try await Self.page(client, "/l/invite?ref=a")
            let head = try await Self.page(client, "/l/invite?ref=a", method: .head)
            let tagsAgain = try await Self.page(client, "/l/invite?ref=a", headers: [prefer: "al"])
            #expect(!tagsOnly.body.contains("<body") && tagsOnly.body.contains("al:ios:url"))
            #expect(full.body.contains("<body") && full.body.contains("og:url"))
            #expect(tagsAgain.body == tagsOnly.body)
            #expect(head.status == .ok && head.body.isEmpty)
            #expect(head.length == String(full.body.utf8.count) && full.length == head.length)
        }
    }

    @Test func theCacheKeepsItsPagesWithinItsBytesDroppingTheOldestFirst() {
        let cache = LinkPageCache(maximumBytes: 2_000)
        func key(_ index: Int) -> LinkPageCache.Key {
            LinkPageCache.Key(
                slug: "s", generation: 1, base: "http://h", alTagsOnly: false, passed: "ref=\(index)", platform: .web)
        }
        let page = LinkPageCache.Page(html: ByteBuffer(string: String(repeating: "x", count: 300)))
        for index in 0..<20 { cache.store(page, for: key(index)) }
        let usage = cache.usage
        #expect(usage.bytes <= 2_000 && usage.pages == 4, "four pages of 300 bytes and their keys fit in 2,000")
        #expect(cache.page(for: key(19)) == page && cache.page(for: key(16)) == page)
        #expect(cache.page(for: key(15)) == nil && cache.page(for: key(0)) == nil)
        cache.store(LinkPageCache.Page(html: ByteBuffer(string: String(repeating: "y", count: 2_000))), for: key(99))
        #expect(cache.page(for: key(99)) == nil, "a page larger than the bound is not kept")
        cache.removeAll()
        #expect(cache.usage.pages == 0 && cache.usage.bytes == 0 && cache.page(for: key(19)) == nil)
    }

    @Test func aLinkChangedInTheStoreStartsANewGenerationAndDropsThePages() async throws {
        let database = ServerFixture()
        let store = try SQLiteEventStore(path: database.path)
        try store.putLinks([StoredLink(slug: "a", json: #"{"slug":"a","web":{"url":"https://a.example"}}"#)])
        let catalog = LinkCatalog(store: store, maximumAge: .zero)
        let first = try await catalog.link("a")
        let again = try await catalog.link("a")
        #expect(first.link?.web?.url == "https://a.example" && again.generation == first.generation)
        let key = LinkPageCache.Key(
            slug: "a", generation: first.generation, base: "b", alTagsOnly: false, passed: "", platform: .web)
        catalog.pages.store(LinkPageCache.Page(html: ByteBuffer(string: "page")), for: key)
        try store.putLinks([StoredLink(slug: "a", json: #"{"slug":"a","web":{"url":"https://b.example"}}"#)])
        let changed = try await catalog.link("a")
        #expect(changed.link?.web?.url == "https://b.example" && changed.generation != first.generation)
        #expect(catalog.pages.page(for: key) == nil)
    }
}

#endif
