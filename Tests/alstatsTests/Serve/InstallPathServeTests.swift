#if Server

import AppLinks
import EventUpload
import EventUploadHTTPClient
import Foundation
import MeasurementEvents
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The install path end to end (docs/install.md), against the built `alstats serve` as an app and its users meet it:
/// pages and store hops over a real socket with a phone's User-Agent, the claim and the app's events through the
/// library (DeferredLinkClaim and HTTPEventSink on AsyncHTTPClient), the report over HTTP. The same run on SQLite
/// (here) and on PostgreSQL (``PostgresInstallPathTests``).
struct InstallPathScenario {
    static let android = "Mozilla/5.0 (Linux; Android 14; E2E-Pixel-7781) AppleWebKit/537.36 Chrome/126.0 Mobile"
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X; E2E-Phone-7781) AppleWebKit/605.1.15"
    static let publicURL = "https://go.example.com"
    /// What must not be at rest after a run: the client's address and what identifies its devices' User-Agents.
    static let identifying = ["127.0.0.1", "E2E-Pixel-7781", "E2E-Phone-7781"]

    let server: ServeProcess
    let folder = TemporaryDatabase()

    /// `alstats serve` on `database` with the public URL, a write, read and admin key.
    init(database: String) throws {
        server = try ServeProcess(
            database: database, arguments: ["--public-url", Self.publicURL], environment: ["ALSTATS_ADMIN_KEYS": "a1"])
    }

    /// A person's page view with `agent`: the page.
    func page(_ agent: String) throws -> String {
        let answer = try #require(
            server.request("GET", "/l/invite?ref=mail&referral=42", key: nil, headers: [("User-Agent", agent)]))
        #expect(answer.status == 200)
        return answer.body
    }

    /// The value of the attribute `name` of the first anchor whose `href` starts with `prefix`, unescaped.
    static func attribute(_ name: String, ofAnchorTo prefix: String, in page: String) -> String? {
        guard let anchor = page.range(of: "href=\"\(prefix)") else { return nil }
        let tag = page[page[..<anchor.lowerBound].range(of: "<a ", options: .backwards)!.lowerBound...]
        guard let start = tag.range(of: " \(name)=\"")?.upperBound, let end = tag[start...].firstIndex(of: "\"")
        else { return nil }
        return String(tag[start..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// A tap on a store button: the hop's `Location`.
    func hop(_ path: String, agent: String) throws -> String {
        let answer = try #require(server.request("GET", path, key: nil, headers: [("User-Agent", agent)]))
        #expect(answer.status == 302, "\(path): \(answer.status)")
        return answer.headers["location"] ?? ""
    }

    /// The claim of a fresh install, through the library.
    func claim(_ name: String) throws -> (AppInstall, DeferredLinkClaim) {
        let install = try AppInstall(stateFile: folder.file("\(name).json"))
        let configuration = DeferredLinkClaim.Configuration(collector: server.url, writeKey: "w1")
        return (
            install, DeferredLinkClaim(configuration, install: install, transport: AsyncHTTPClientUploadTransport())
        )
    }

    /// An Android phone (Google Play's referrer), an iPhone (the pasteboard) and an organic install; returns the
    /// report's JSON once the collector has stored what they did.
    func run() async throws -> JSONValue {
        let put = server.request(
            "PUT", "/api/links/invite", key: "a1", contentType: "application/json", body: LinkServeProcessTests.invite)
        #expect(put?.status == 200, "\(put?.body ?? "no answer")")
        let sink = try HTTPEventSink(
            .init(collector: server.url, writeKey: "w1", outboxPath: folder.file("outbox.sqlite")),
            transport: AsyncHTTPClientUploadTransport())
        let bus = MeasurementEventBus()
        bus.attach(sink)

        // Android: the Google Play button's hop puts the page's click in the install referrer.
        let androidPage = try page(Self.android)
        let play = try #require(Self.attribute("href", ofAnchorTo: "/l/invite/store/android", in: androidPage))
        let click = try #require(DeferredAppLink.clickToken(installReferrer: String(play.split(separator: "?")[1])))
        let location = try hop(play, agent: Self.android)
        #expect(location.hasPrefix("https://play.google.com/store/apps/details?id=com.example.couchin&referrer="))
        let referrer = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "referrer" }?.value)
        #expect(referrer == "alstats_click=\(click)&utm_source=alstats&utm_medium=link&utm_campaign=invite")
        let (androidInstall, androidClaim) = try claim("android")
        let fromPlay = try #require(try await androidClaim.claim(installReferrer: referrer).link)
        #expect(fromPlay.slug == "invite" && fromPlay.ref == "mail" && fromPlay.query == ["referral": "42"])
        #expect(fromPlay.url?.hasPrefix("couchin://invite?referral=42&ref=mail&al_applink_data=") == true)
        fromPlay.recordOpen(on: bus)
        #expect(try androidInstall.recordFirstOpen(on: bus))

        // iPhone: the App Store button's URL on the pasteboard, its hop to the App Store.
        let iPhonePage = try page(Self.iPhone)
        let copied = try #require(
            Self.attribute("data-alstats-copy", ofAnchorTo: "/l/invite/store/ios", in: iPhonePage))
        #expect(copied.hasPrefix("\(Self.publicURL)/l/invite?alstats_click="))
        let store = try #require(Self.attribute("href", ofAnchorTo: "/l/invite/store/ios", in: iPhonePage))
        #expect(try hop(store, agent: Self.iPhone) == "https://apps.apple.com/app/id123")
        let (iPhoneInstall, iPhoneClaim) = try claim("iphone")
        let fromPasteboard = try #require(
            try await iPhoneClaim.claim(pasteboard: copied, linkHost: "go.example.com").link)
        #expect(fromPasteboard.slug == "invite" && fromPasteboard.ref == "mail")
        fromPasteboard.recordOpen(on: bus)
        #expect(try iPhoneInstall.recordFirstOpen(on: bus))
        #expect(try await iPhoneClaim.claim(pasteboard: copied, linkHost: "go.example.com") == .claimedBefore)

        // An install without a link: the pasteboard holds something else.
        let (organic, organicClaim) = try claim("organic")
        #expect(try await organicClaim.claim(pasteboard: "milk, eggs", linkHost: "go.example.com") == .noClick)
        #expect(try organic.recordFirstOpen(on: bus))

        await bus.flush()
        try await sink.upload()
        await bus.close()
        return try await report()
    }

    /// The report once its hits and store taps (stored every 100 ms, off the response path) are in; fails after 20 s.
    func report() async throws -> JSONValue {
        for _ in 0..<200 {
            let answer = try #require(server.request("GET", "/api/report", key: "r1"))
            let report = try JSONValue.parse(answer.body)
            if case .array(let links) = report["links"],
                let invite = links.first(where: { $0["slug"] == "invite" }),
                invite["hits"] == 2, invite["store_taps"] == ["ios": 1, "android": 1]
            {
                return report
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ServeProcessError("the report never showed the two page views and store taps")
    }

    /// The report's funnel of the run: two page views, a store tap and a claimed install each, two deferred opens
    /// (counted as arrivals too), three first opens of which two attributed.
    static func expectFunnel(_ report: JSONValue) throws {
        guard case .array(let links) = report["links"] else { throw ServeProcessError("no links in \(report)") }
        let invite = try #require(links.first { $0["slug"] == "invite" })
        #expect(invite["hits"] == 2 && invite["crawler_fetches"] == 0)
        #expect(invite["store_taps"] == ["ios": 1, "android": 1] && invite["installs"] == ["ios": 1, "android": 1])
        #expect(invite["deferred_opens"] == 2 && invite["arrivals"] == 2 && invite["install_rate"] == 1.0)
        guard case .int(let delay) = invite["median_delay_ms"] else {
            Issue.record("no median delay in \(invite)")
            return
        }
        #expect(delay >= 0 && delay < 60_000)
        #expect(report["installs"] == ["first_opens": 3, "attributed": 2, "organic": 1])
    }
}

@Suite(.serialized) struct InstallPathServeTests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func aClaimWindowThatIsNotADurationStopsServeWithAUsageError() throws {
        let fixture = ServerFixture()
        let config = fixture.folder.appendingPathComponent("serve.json").path
        try Data(#"{"write_keys": ["w1"], "deferred_window": "a week"}"#.utf8).write(to: URL(fileURLWithPath: config))
        let serve = try BuiltAlstats.run(["serve", "--database", fixture.path, "--config", config, "--port", "0"])
        #expect(serve.status == 64 && serve.errors.contains("\"deferred_window\""), "\(serve.errors)")
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func anAndroidPhoneAndAnIPhoneInstallFromTheStoreAndOpenOnTheLinkWithNoAddressOrUserAgentStored() async throws {
        let fixture = ServerFixture()
        let scenario = try InstallPathScenario(database: fixture.path)
        try InstallPathScenario.expectFunnel(try await scenario.run())
        #expect(scenario.server.stop(with: SIGTERM) == 0)
        let events = try fixture.storedEvents().values
        #expect(events.filter { $0.name == EventName.linkInstall }.count == 2)
        #expect(events.filter { $0.name == EventName.navIn && $0.fields[FieldName.deferred] == "1" }.count == 2)
        for suffix in ["", "-wal"] {
            let bytes = TemporaryDatabase.bytes(fixture.path + suffix)
            for text in InstallPathScenario.identifying {
                #expect(bytes.range(of: Data(text.utf8)) == nil, "\(text) is in the database\(suffix)")
            }
        }
    }
}

#endif
