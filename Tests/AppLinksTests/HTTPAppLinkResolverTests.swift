import AppLinks
import Foundation
import MeasurementEvents
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if !ALSTATS_CORE_ONLY && canImport(AppLinksHTTPClient)
    import AppLinksHTTPClient
#endif

/// The HTTP resolvers of this build, each held to the same behaviour: `URLSession`'s where it is built (Apple
/// platforms, the core-only build), AsyncHTTPClient's in every full build.
enum HTTPResolver: String, CaseIterable, CustomTestStringConvertible {
    #if ALSTATS_URLSESSION
        case urlSession
    #endif
    #if canImport(AppLinksHTTPClient)
        case asyncHTTPClient
    #endif

    var testDescription: String { rawValue }

    /// A resolver with the given limits. The default deadline is generous: on a loaded 2-core CI host a test can
    /// wait for the thread pool long enough to turn the users' 10 s default into a timeout that tests nothing.
    func make(timeout: Duration = .seconds(60), maximumRedirects: Int = 5, maximumBytes: Int = 1 << 20)
        -> any AppLinkResolving
    {
        switch self {
        #if ALSTATS_URLSESSION
            case .urlSession:
                HTTPAppLinkResolver(timeout: timeout, maximumRedirects: maximumRedirects, maximumBytes: maximumBytes)
        #endif
        #if canImport(AppLinksHTTPClient)
            case .asyncHTTPClient:
                AsyncHTTPClientAppLinkResolver(
                    timeout: timeout, maximumRedirects: maximumRedirects, maximumBytes: maximumBytes)
        #endif
        }
    }
}

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
            // Over the limit, and says so in its Content-Length.
            "/big": .page(status: 200, body: String(repeating: "x", count: 150_000)),
        ])
        defer { server.stop() }
        try await body(server)
    }

    @Test(arguments: HTTPResolver.allCases)
    func fetchesThePageWithThePreferHeader(resolver: HTTPResolver) async throws {
        try await withServer { server in
            let link = try await resolver.make().appLink(for: server.url("/article"))
            #expect(link.targets.map { $0.url?.absoluteString } == ["example-ios://article/1"])
            #expect(link.webURL == nil)
            #expect(link.sourceURL == server.url("/article"))
            #expect(server.requests.first?.headers["prefer-html-meta-tags"] == "al")
        }
    }

    @Test(arguments: HTTPResolver.allCases)
    func followsRedirectsAndKeepsTheAskedURLAsSource(resolver: HTTPResolver) async throws {
        try await withServer { server in
            let link = try await resolver.make().appLink(for: server.url("/moved"))
            #expect(link.targets.count == 1)
            #expect(link.sourceURL == server.url("/moved"))
            #expect(server.requests.map(\.path) == ["/moved", "/article"])
            #expect(server.requests.allSatisfy { $0.headers["prefer-html-meta-tags"] == "al" })
        }
    }

    @Test(
        arguments: HTTPResolver.allCases,
        [
            ("/loop", "too_many_redirects"),
            ("/to-ftp", "unsupported_scheme"),
            ("/gone", "http_status_410"),
            ("/nowhere", "http_status_404"),
            ("/slow", "timeout"),
            ("/huge", "too_large"),
            ("/big", "too_large"),
            ("/refused", "network_error"),
        ])
    func failsWithATypedError(resolver kind: HTTPResolver, failure: (path: String, code: String)) async throws {
        let (path, code) = failure
        try await withServer { server in
            // Only the page that never answers gets a short deadline, so a loaded machine cannot turn the
            // other cases into timeouts.
            let timeout: Duration = path == "/slow" ? .milliseconds(300) : .seconds(30)
            let resolver = kind.make(timeout: timeout, maximumRedirects: 3, maximumBytes: 100_000)
            let url = path == "/refused" ? Self.closedPortURL() : server.url(path)
            let error = await #expect(throws: AppLinkError.self) { try await resolver.appLink(for: url) }
            #expect(error?.code == code, "\(error.map { "\($0)" } ?? "no error"); \(server.requests.map(\.path))")
        }
    }

    /// A URL on a port nothing listens on: one the system gave a socket of ours, closed at once. (Not a stopped
    /// LoopbackHTTPServer: its accept thread may outlive its socket and take the connections of a server made next
    /// on the same descriptor number.)
    static func closedPortURL() -> URL {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return URL(string: "http://127.0.0.1:\(bound ? UInt16(bigEndian: address.sin_port) : 9)/refused")!
    }

    @Test(arguments: HTTPResolver.allCases)
    func refusesSchemesItCannotFetch(resolver: HTTPResolver) async {
        let error = await #expect(throws: AppLinkError.self) {
            try await resolver.make().appLink(for: URL(string: "file:///etc/passwd")!)
        }
        #expect(error?.code == "unsupported_scheme")
    }

    @Test(arguments: HTTPResolver.allCases)
    func aFailedFetchIsAFailedNavigationEvent(resolver: HTTPResolver) async throws {
        try await withServer { server in
            let recorder = EventRecorder()
            let result = await AppLinkNavigation.navigate(
                to: server.url("/gone"), resolver: resolver.make(), canOpen: { _ in true }, open: { _ in true },
                on: recorder.bus)
            #expect(result.error == "http_status_410")
            let fields = recorder.events().first?.fields
            #expect(fields?["type"] == "fail")
            #expect(fields?["success"] == "0")
            #expect(fields?["sourceURLHost"] == "127.0.0.1")
        }
    }
}
