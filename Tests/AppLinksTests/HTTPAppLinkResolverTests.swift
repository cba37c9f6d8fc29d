import AppLinks
import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// The time limit only turns a hang into a failure: the resolver's own timeouts are what the tests check. It is
/// generous because a resumed async test can wait behind others for a thread of the concurrency pool; under TSan on
/// 2 cores one waited more than a minute.
@Suite(.timeLimit(.minutes(10)))
struct HTTPAppLinkResolverTests {
    static let page = metaTags([
        ("al:ios:url", "example-ios://article/1"), ("al:ios:app_name", "Example"), ("al:web:should_fallback", "false"),
    ])

    func withServer(_ body: (LoopbackHTTPServer) async throws -> Void) async throws {
        let server = try LoopbackHTTPServer(routes: [
            "/article": .page(status: 200, body: Self.page),
            "/moved": .redirect(to: "/article"),
            "/loop": .redirect(to: "/loop"),
            "/to-ftp": .redirect(to: "ftp://127.0.0.1/x"),
            "/gone": .page(status: 410, body: "gone"),
            "/slow": .hang,
            "/huge": .stream(bytes: 300_000),
        ])
        defer { server.stop() }
        try await body(server)
    }

    @Test func fetchesThePageWithThePreferHeader() async throws {
        try await withServer { server in
            let link = try await HTTPAppLinkResolver().appLink(for: server.url("/article"))
            #expect(link.targets.map { $0.url?.absoluteString } == ["example-ios://article/1"])
            #expect(link.webURL == nil)
            #expect(link.sourceURL == server.url("/article"))
            #expect(server.requests.first?.headers["prefer-html-meta-tags"] == "al")
        }
    }

    @Test func followsRedirectsAndKeepsTheAskedURLAsSource() async throws {
        try await withServer { server in
            let link = try await HTTPAppLinkResolver().appLink(for: server.url("/moved"))
            #expect(link.targets.count == 1)
            #expect(link.sourceURL == server.url("/moved"))
            #expect(server.requests.map(\.path) == ["/moved", "/article"])
            #expect(server.requests.allSatisfy { $0.headers["prefer-html-meta-tags"] == "al" })
        }
    }

    @Test(arguments: [
        ("/loop", "too_many_redirects"),
        ("/to-ftp", "unsupported_scheme"),
        ("/gone", "http_status_410"),
        ("/nowhere", "http_status_404"),
        ("/slow", "timeout"),
        ("/huge", "too_large"),
    ])
    func failsWithATypedError(path: String, code: String) async throws {
        try await withServer { server in
            // Only the page that never answers gets a short deadline, so a loaded machine cannot turn the
            // other cases into timeouts.
            let timeout: Duration = path == "/slow" ? .milliseconds(300) : .seconds(30)
            let resolver = HTTPAppLinkResolver(timeout: timeout, maximumRedirects: 3, maximumBytes: 100_000)
            let error = await #expect(throws: AppLinkError.self) { try await resolver.appLink(for: server.url(path)) }
            #expect(error?.code == code, "\(server.requests.map(\.path))")
        }
    }

    @Test func refusesSchemesItCannotFetch() async {
        let error = await #expect(throws: AppLinkError.self) {
            try await HTTPAppLinkResolver().appLink(for: URL(string: "file:///etc/passwd")!)
        }
        #expect(error?.code == "unsupported_scheme")
    }

    @Test func aFailedFetchIsAFailedNavigationEvent() async throws {
        try await withServer { server in
            let recorder = EventRecorder()
            let result = await AppLinkNavigation.navigate(
                to: server.url("/gone"), resolver: HTTPAppLinkResolver(), canOpen: { _ in true }, open: { _ in true },
                on: recorder.bus)
            #expect(result.error == "http_status_410")
            let fields = recorder.events().first?.fields
            #expect(fields?["type"] == "fail")
            #expect(fields?["success"] == "0")
            #expect(fields?["sourceURLHost"] == "127.0.0.1")
        }
    }
}
