#if Server

import EventServer
import EventStoreInterface
import EventStoreSQLite
import Foundation
import HostedLinks
import Hummingbird
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import Testing

/// The install path's routes (docs/install.md): the click a person's page mints, the store hop
/// (`/l/{slug}/store/{platform}`) and the claim (`POST /v1/deferred`) with every answer of its table.
@Suite struct InstallRouteTests {
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile"

    /// The events named `name` once the store holds at least `count` (hits and taps are stored every 100 ms, off
    /// the response path); fails after 20 s.
    static func stored(_ fixture: ServerFixture, _ name: String, count: Int) async throws -> [MeasurementEvent] {
        for _ in 0..<400 {
            let events = try fixture.storedEvents().values.filter { $0.name == name }
            if events.count >= count { return events.sorted { $0.timestamp < $1.timestamp || $0.id < $1.id } }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FixtureError("fewer than \(count) \(name) were stored")
    }

    /// The click tokens in the database (the recorder stores them every 100 ms).
    static func storedTokens(_ fixture: ServerFixture) throws -> Int {
        try SQLiteEventStore(path: fixture.path, options: .init(create: false)).withConnection {
            Int(try $0.connection.scalarInt("SELECT count(*) FROM click_tokens"))
        }
    }

    /// The click tokens in the database once there are at least `count` (stored every 100 ms); fails after 20 s.
    static func tokens(_ fixture: ServerFixture, atLeast count: Int) async throws -> Int {
        for _ in 0..<400 {
            let stored = try storedTokens(fixture)
            if stored >= count { return stored }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FixtureError("fewer than \(count) click tokens were stored")
    }

    /// The first click token of a page.
    static func click(in page: String) -> String? {
        guard let start = page.range(of: "alstats_click=")?.upperBound else { return nil }
        return String(page[start...].prefix(22))
    }

    static func start(_ client: some TestClientProtocol) async throws {
        try await client.execute(
            uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey),
            body: ByteBuffer(string: LinkRouteTests.invite)
        ) { #expect($0.status == .ok) }
    }

    /// A person's page view: the click token its store buttons carry.
    static func view(
        _ client: some TestClientProtocol, _ uri: String = "/l/invite?ref=mail&referral=42"
    ) async throws -> String {
        try await client.execute(uri: uri, method: .get, headers: LinkRouteTests.request(android)) { response in
            #expect(response.status == .ok)
            return click(in: String(buffer: response.body)) ?? ""
        }
    }

    static func claim(
        _ client: some TestClientProtocol, _ body: String, key: String? = ServerFixture.writeKey,
        contentType: String = "application/json"
    ) async throws -> (status: HTTPResponse.Status, body: String) {
        try await client.execute(
            uri: "/v1/deferred", method: .post, headers: headers(key: key, contentType: contentType),
            body: ByteBuffer(string: body)
        ) { ($0.status, String(buffer: $0.body)) }
    }

    @Test func aPersonsClickTravelsThroughTheHopIntoGooglePlaysReferrerAndIsRecorded() async throws {
        let fixture = ServerFixture()
        try await fixture.application { $0.publicURL = "https://go.example.com" }.test(.router) { client in
            try await Self.start(client)
            let click = try await Self.view(client)
            #expect(ClickToken.isToken(click))
            let location = try await client.execute(
                uri: "/l/invite/store/android?alstats_click=\(click)&referral=42&ref=mail", method: .get,
                headers: LinkRouteTests.request(Self.android)
            ) { response in
                #expect(response.status == .found && response.headers[.cacheControl] == "no-store")
                return response.headers[.location] ?? ""
            }
            #expect(
                location == "https://play.google.com/store/apps/details?id=com.example.couchin&referrer="
                    + "alstats_click%3D\(click)%26utm_source%3Dalstats%26utm_medium%3Dlink%26utm_campaign%3Dinvite")
            let apple = try await client.execute(
                uri: "/l/invite/store/ios?alstats_click=\(click)", method: .get,
                headers: LinkRouteTests.request(LinkRouteTests.phone)
            ) { $0.headers[.location] }
            #expect(apple == "https://apps.apple.com/app/id123")
        }
        let hit = try await LinkRouteTests.hits(fixture, count: 1)[0]
        let taps = try await Self.stored(fixture, EventName.linkStore, count: 2)
        #expect(hit.fields["click"] != nil && taps.allSatisfy { $0.fields["click"] == hit.fields["click"] })
        #expect(Set(taps.compactMap { $0.fields["platform"] }) == ["android", "ios"])
        let play = try #require(taps.first { $0.fields["platform"] == "android" })
        #expect(play.fields["ref"] == "mail" && play.fields["query/referral"] == "42")
        #expect(taps.allSatisfy { $0.fields["crawler"] == "0" && $0.fields["visitor"]?.count == 16 })
        #expect(try await Self.tokens(fixture, atLeast: 1) == 1, "the hop took the page's token")
    }

    @Test func crawlersAndHEADGetTheRedirectButMintNoToken() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await Self.start(client)
            try await client.execute(
                uri: "/l/invite", method: .get, headers: LinkRouteTests.request("Slackbot-LinkExpanding 1.0")
            ) { #expect(!String(buffer: $0.body).contains("alstats_click")) }
            for (method, agent) in [(HTTPRequest.Method.head, Self.android), (.get, "facebookexternalhit/1.1")] {
                try await client.execute(
                    uri: "/l/invite/store/android", method: method, headers: LinkRouteTests.request(agent)
                ) { response in
                    #expect(response.status == .found)
                    #expect(response.headers[.location]?.contains("alstats_click") == false)
                }
            }
            // A HEAD of a person's page: its GET's length, and no token.
            let length = try await client.execute(
                uri: "/l/invite", method: .head, headers: LinkRouteTests.request(Self.android)
            ) { $0.headers[.contentLength] }
            let page = try await client.execute(
                uri: "/l/invite", method: .get, headers: LinkRouteTests.request(Self.android)
            ) { String(buffer: $0.body) }
            #expect(length == String(page.utf8.count) && Self.click(in: page) != nil)
        }
        let taps = try await Self.stored(fixture, EventName.linkStore, count: 2)
        #expect(taps.allSatisfy { $0.fields["crawler"] == "1" && $0.fields["click"] == nil })
        let hits = try await LinkRouteTests.hits(fixture, count: 3)
        #expect(hits.filter { $0.fields["click"] != nil }.count == 1, "only the person's GET")
        // Every request has been answered: what they minted is stored together, by the recorder's next store.
        #expect(try await Self.tokens(fixture, atLeast: 1) == 1)
    }

    @Test func aHopWithoutAValidClickOfItsLinkMintsOneAndUnknownStoresAre404() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await Self.start(client)
            for query in ["", "?alstats_click=not-a-token", "?alstats_click=AAAAAAAAAAAAAAAAAAAAAA"] {
                let location = try await client.execute(
                    uri: "/l/invite/store/android\(query)", method: .get,
                    headers: LinkRouteTests.request(Self.android)
                ) { $0.headers[.location] ?? "" }
                let referrer = URLComponents(string: location)?.queryItems?.first { $0.name == "referrer" }?.value
                let click = referrer.flatMap { Self.click(in: $0) } ?? ""
                #expect(ClickToken.isToken(click) && click != "AAAAAAAAAAAAAAAAAAAAAA", "\(location)")
            }
            try await client.execute(
                uri: "/api/links/web", method: .put, headers: headers(key: ServerFixture.adminKey),
                body: ByteBuffer(string: #"{"slug": "web", "web": {"url": "https://w.example"}}"#)
            ) { #expect($0.status == .ok) }
            for uri in ["/l/nope/store/ios", "/l/invite/store/windows", "/l/web/store/android"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .notFound, "\(uri)") }
            }
        }
    }

    @Test func aClickIsClaimedOnceByOneInstallWithEveryAnswerOfTheTable() async throws {
        let fixture = ServerFixture()
        let app = try fixture.application { $0.publicURL = "https://go.example.com" }
        try await app.test(.router) { client in
            try await Self.start(client)
            let click = try await Self.view(client)
            fixture.clock.advance(by: 90_000)
            let body = #"{"click": "\#(click)", "install": "install-a", "platform": "android"}"#
            #expect(try await Self.claim(client, body, key: nil).status == .unauthorized)
            let first = try await Self.claim(client, body)
            #expect(first.status == .ok, "\(first.body)")
            let answer = try JSONValue.parse(first.body)
            #expect(answer["slug"] == "invite" && answer["ref"] == "mail" && answer["query"] == ["referral": "42"])
            #expect(answer["delay_ms"] == .int(90_000) && answer["clicked_at"] == "2025-11-21T00:00:00.000Z")
            #expect(
                answer["url"]?.stringValue?.hasPrefix("couchin://invite?referral=42&ref=mail&al_applink_data=") == true)
            fixture.clock.advance(by: 5_000)
            let retried = try await Self.claim(client, body)
            #expect(retried.status == .ok && retried.body == first.body, "a retried claim gets the same answer")
            let other = try await Self.claim(client, body.replacingOccurrences(of: "install-a", with: "install-b"))
            #expect(other.status == .conflict && other.body.contains(#""code":"already_claimed""#))

            let unknown = #"{"click": "AAAAAAAAAAAAAAAAAAAAAA", "install": "i", "platform": "ios"}"#
            let malformed = #"{"click": "nope", "install": "i", "platform": "ios"}"#
            for claim in [unknown, malformed] {
                let answer = try await Self.claim(client, claim)
                #expect(answer.status == .notFound && answer.body.contains(#""code":"unknown_click""#))
            }
            let organic = try await Self.claim(client, #"{"install": "i", "platform": "ios"}"#)
            #expect(organic.status == .noContent && organic.body.isEmpty)
            let notJSON = try await Self.claim(client, "click=1")
            #expect(notJSON.status == .badRequest && notJSON.body.contains(#""code":"bad_json""#))
            let noInstall = try await Self.claim(client, #"{"click": "\#(click)", "platform": "ios"}"#)
            #expect(noInstall.status == .badRequest && noInstall.body.contains(#""code":"missing_install""#))
            let large = #"{"install": "i", "platform": "ios", "pad": "\#(String(repeating: "x", count: 4_100))"}"#
            let tooLarge = try await Self.claim(client, large)
            #expect(tooLarge.status == .contentTooLarge && tooLarge.body.contains(#""code":"too_large""#))
            #expect(try await Self.claim(client, body, contentType: "text/html").status == .unsupportedMediaType)

            let later = try await Self.view(client)
            fixture.clock.advance(by: 7 * 86_400_000 + 1)
            let expired = try await Self.claim(client, body.replacingOccurrences(of: click, with: later))
            #expect(expired.status == .notFound && expired.body.contains(#""code":"expired_click""#))
        }
        let installs = try await Self.stored(fixture, EventName.linkInstall, count: 1)
        #expect(installs.count == 1, "the first claim and its retry record one install")
        #expect(
            installs[0].fields == [
                "slug": "invite", "platform": "android", "ref": "mail", "query/referral": "42", "delay_ms": "90000",
            ])
        #expect(installs[0].timestamp == ServerFixture.now + 90_000)
    }

    /// Many installs claim one click at once: one `200`, every other a `409`, one install event.
    @Test func concurrentClaimsOfOneClickHaveExactlyOneWinner() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await Self.start(client)
            let click = try await Self.view(client)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let body = #"{"click": "\#(click)", "install": "install-\#(index)", "platform": "ios"}"#
                        return try await Self.claim(client, body).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1 && statuses.filter { $0 == .conflict }.count == 15)
        }
        #expect(try await Self.stored(fixture, EventName.linkInstall, count: 1).count == 1)
    }

    @Test func theClaimWindowOfTheConfigIsADurationOfSecondsMinutesHoursOrDays() throws {
        let fixture = ServerFixture()
        let path = fixture.folder.appendingPathComponent("serve.json").path
        func window(_ json: String) throws -> Duration? {
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            return try ServerConfigFile.read(path).duration("deferred_window")
        }
        #expect(try window(#"{"deferred_window": "90s"}"#) == .seconds(90))
        #expect(try window(#"{"deferred_window": "15m"}"#) == .seconds(900))
        #expect(try window(#"{"deferred_window": "24h"}"#) == .seconds(86_400))
        #expect(try window(#"{"deferred_window": "7d"}"#) == .seconds(604_800))
        #expect(try window(#"{"write_keys": ["w1"]}"#) == nil)
        for bad in [#""7""#, #""1w""#, #""""#, "3", #""0d""#, #""-1d""#, #""d""#] {
            #expect(throws: EventServerError.self, "\(bad)") { try window(#"{"deferred_window": \#(bad)}"#) }
        }
    }

    /// Once the window has ended, the sweep deletes the click and its install id: its claim is unknown.
    @Test func clicksPastTheirWindowAreDeletedWithTheirInstallIDs() async throws {
        let fixture = ServerFixture()
        let app = try fixture.application {
            $0.deferredWindow = .seconds(3_600)
            $0.clickSweepInterval = .milliseconds(100)
        }
        try await app.test(.router) { client in
            try await Self.start(client)
            let click = try await Self.view(client)
            let body = #"{"click": "\#(click)", "install": "install-a", "platform": "ios"}"#
            #expect(try await Self.claim(client, body).status == .ok)
            fixture.clock.advance(by: 3_600_001)
            var remaining = 1
            for _ in 0..<100 where remaining > 0 {
                try await Task.sleep(for: .milliseconds(50))
                remaining = try Self.storedTokens(fixture)
            }
            #expect(remaining == 0)
            let answer = try await Self.claim(client, body)
            #expect(answer.status == .notFound && answer.body.contains(#""code":"unknown_click""#))
        }
    }
}

#endif
