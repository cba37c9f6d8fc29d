// The checker against local servers needs the Linux HTTP client, which the core-only build leaves out.
#if Server
import AppLinks
import AppLinksCheck
import AppLinksHTTPClient
import Foundation
import TestSupport
import Testing

/// `LinkChecker` against a local server for each kind of mistake, fetching as the platforms fetch (real sockets,
/// AsyncHTTPClient): each mistake is named in the verdict of the platform it breaks, a correct setup opens
/// everywhere.
@Suite(.timeLimit(.minutes(5)))
struct LinkCheckerTests {
    static let appID = "ABCDE12345.com.example.app"
    static let fingerprint = AssetLinksTests.fingerprint
    static let association =
        #"{"applinks": {"details": [{"appIDs": ["\#(appID)"], "components": [{"/": "/l/*"}]}]}}"#
    static let assetLinks = "[" + AssetLinksTests.statement() + "]"
    static let tags = """
        <html><head><meta property="al:ios:url" content="example://invite">
        <meta property="al:ios:app_store_id" content="123"><meta property="al:ios:app_name" content="Example">
        <meta property="al:android:url" content="example://invite">
        <meta property="al:android:package" content="com.example.app"></head><body>Invite</body></html>
        """

    /// The routes of a correct setup, with `changes` on top.
    static func site(_ changes: [String: LoopbackHTTPServer.Response] = [:]) -> [String: LoopbackHTTPServer
        .Response]
    {
        [
            "/.well-known/apple-app-site-association": .file(
                status: 200, contentType: "application/json", body: association),
            "/.well-known/assetlinks.json": .file(status: 200, contentType: "application/json", body: assetLinks),
            "/l/invite": .page(status: 200, body: tags),
        ].merging(changes) { $1 }
    }

    /// The report of `path` on a server with `routes`, and the requests the server got.
    static func check(
        _ routes: [String: LoopbackHTTPServer.Response], path: String = "/l/invite"
    ) async throws -> (LinkCheckReport, [LoopbackHTTPServer.Request]) {
        let server = try LoopbackHTTPServer(routes: routes)
        defer { server.stop() }
        let checker = LinkChecker(
            fetcher: AsyncHTTPClientLinkCheckFetcher(timeout: .seconds(30)), userAgent: "alstats-check/test")
        return (await checker.check(server.url(path)), server.requests)
    }

    @Test func aCorrectSetupOpensEverywhereAndTheCheckSaysWhoItIs() async throws {
        let (report, requests) = try await Self.check(Self.site())
        #expect(report.opens && !report.unreachable, "\(report.lines)")
        #expect(report.ios.apps == [Self.appID] && report.android.apps == ["com.example.app"])
        #expect(report.appLinks.targets[.iphone]?.first?.url?.absoluteString == "example://invite")
        #expect(report.appLinks.targets[.android]?.first?.package == "com.example.app")
        #expect(report.ios.notes.contains { $0.contains("over https only") }, "an http URL is noted")
        #expect(requests.allSatisfy { $0.headers["user-agent"] == "alstats-check/test" })
        #expect(requests.contains { $0.path == "/l/invite" && $0.headers["prefer-html-meta-tags"] == "al" })
    }

    /// Each mistake, the platform it breaks and the words of its reason.
    static let mistakes:
        [(
            name: String, routes: [String: LoopbackHTTPServer.Response], ios: String?,
            android: String?, appLinks: String?
        )] = [
            (
                "redirect", site(["/.well-known/apple-app-site-association": .redirect(to: "/aasa.json")]),
                "answers 302 with a redirect to /aasa.json; the platforms do not follow redirects", nil, nil
            ),
            (
                "HTML instead of JSON",
                site([
                    "/.well-known/apple-app-site-association": .page(
                        status: 200, body: "<!DOCTYPE html><p>Home</p>")
                ]),
                "is an HTML page, not JSON", nil, nil
            ),
            (
                "wrong content type",
                site([
                    "/.well-known/assetlinks.json": .file(status: 200, contentType: "text/plain", body: assetLinks)
                ]),
                nil, "is served as text/plain: it must be Content-Type: application/json", nil
            ),
            (
                "oversized", site(["/.well-known/apple-app-site-association": .stream(bytes: 140_000)]),
                "is larger than 128 KB", nil, nil
            ),
            (
                "app id without team",
                site([
                    "/.well-known/apple-app-site-association": .file(
                        status: 200, contentType: "application/json",
                        body: association.replacingOccurrences(of: appID, with: "com.example.app"))
                ]),
                #"the app ID "com.example.app" has no Team ID"#, nil, nil
            ),
            (
                "path excluded",
                site([
                    "/.well-known/apple-app-site-association": .file(
                        status: 200, contentType: "application/json",
                        body:
                            #"{"applinks": {"details": [{"appIDs": ["\#(appID)"], "components": [{"/": "/l/invite", "exclude": true}, {"/": "/l/*"}]}]}}"#
                    )
                ]),
                #"is excluded by component 1 {"/":"/l/invite","exclude":true}"#, nil, nil
            ),
            (
                "NOT path",
                site([
                    "/.well-known/apple-app-site-association": .file(
                        status: 200, contentType: "application/json",
                        body:
                            #"{"applinks": {"details": [{"appID": "\#(appID)", "paths": ["NOT /l/invite", "*"]}]}}"#
                    )
                ]),
                #"is excluded by "NOT /l/invite" in its paths"#, nil, nil
            ),
            (
                "malformed fingerprint",
                site([
                    "/.well-known/assetlinks.json": .file(
                        status: 200, contentType: "application/json",
                        body: "[" + AssetLinksTests.statement(fingerprints: ["14:6d:e9"]) + "]")
                ]),
                nil, #"fingerprint "14:6d:e9" of com.example.app is not 32 colon-separated hex pairs"#, nil
            ),
            (
                "wrong relation",
                site([
                    "/.well-known/assetlinks.json": .file(
                        status: 200, contentType: "application/json",
                        body: "["
                            + AssetLinksTests.statement(relation: "delegate_permission/common.get_login_creds")
                            + "]")
                ]),
                nil, "not delegate_permission/common.handle_all_urls", nil
            ),
            (
                "no al tags", site(["/l/invite": .page(status: 200, body: "<html><head></head></html>")]),
                nil, nil, "the page has no al:* meta tags"
            ),
            (
                "tags only for crawlers",
                site([
                    "/l/invite": .varying { request in
                        (request.headers["user-agent"] ?? "").contains("facebookexternalhit")
                            ? .page(status: 200, body: tags) : .page(status: 200, body: "<html></html>")
                    }
                ]),
                nil, nil, "the page has al:* tags only for crawlers"
            ),
            (
                "tags with name=",
                site(["/l/invite": .page(status: 200, body: #"<meta name="al:ios:url" content="example://x">"#)]),
                nil, nil, #"use name="al:…""#
            ),
            (
                "no association files", ["/l/invite": .page(status: 200, body: tags)],
                "answers HTTP 404", "answers HTTP 404", nil
            ),
        ]

    @Test(arguments: mistakes.map(\.name))
    func eachMistakeIsNamedInTheVerdictOfThePlatformItBreaks(_ name: String) async throws {
        let mistake = try #require(Self.mistakes.first { $0.name == name })
        let (report, _) = try await Self.check(mistake.routes)
        for (name, verdict, expected) in [
            ("iOS", report.ios, mistake.ios), ("Android", report.android, mistake.android),
            ("App Links", report.appLinks.verdict, mistake.appLinks),
        ] {
            if let expected {
                #expect(!verdict.ok, "\(mistake.name): \(name) should not open")
                #expect(
                    verdict.reasons.contains { $0.contains(expected) },
                    "\(mistake.name): \(name) says \(verdict.reasons)")
            } else {
                #expect(verdict.ok, "\(mistake.name): \(name) should open: \(verdict.reasons)")
            }
        }
        #expect(!report.unreachable)
    }

    @Test func aPageThatCannotBeReachedMakesTheReportUnreachable() async throws {
        let closed = try LoopbackHTTPServer(routes: [:])
        let url = closed.url("/l/invite")
        closed.stop()
        let checker = LinkChecker(fetcher: AsyncHTTPClientLinkCheckFetcher(), userAgent: "alstats-check/test")
        let report = await checker.check(url)
        #expect(report.unreachable && !report.opens)
        #expect(report.appLinks.verdict.reasons.first?.contains("could not be fetched") == true)
    }
}
#endif
