import AppLinks
import Foundation
import MeasurementEvents
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What every HTTP App Link resolver is held to, whatever client it fetches with: `URLSession`'s (AppLinksTests)
/// and AsyncHTTPClient's (AppLinksHTTPClientTests) pass the same checks against the same loopback pages.
///
/// ```swift
/// let contract = AppLinkResolverContract { timeout, redirects, bytes in
///     HTTPAppLinkResolver(timeout: timeout, maximumRedirects: redirects, maximumBytes: bytes)
/// }
/// try await contract.fetchesThePageWithThePreferHeader()
/// ```
public struct AppLinkResolverContract: Sendable {
    /// Makes the resolver under test with a deadline, a redirect limit and a size limit.
    public typealias Make =
        @Sendable (_ timeout: Duration, _ maximumRedirects: Int, _ maximumBytes: Int) ->
        any AppLinkResolving

    private let make: Make

    /// The contract of the resolvers `make` makes.
    public init(_ make: @escaping Make) {
        self.make = make
    }

    /// A resolver with a generous deadline: on a loaded 2-core CI host a test can wait for the thread pool long
    /// enough to turn the users' 10 s default into a timeout that tests nothing.
    private func resolver(timeout: Duration = .seconds(60), redirects: Int = 5, bytes: Int = 1 << 20)
        -> any AppLinkResolving
    {
        make(timeout, redirects, bytes)
    }

    static let page = [
        ("al:ios:url", "example-ios://article/1"), ("al:ios:app_name", "Example"), ("al:web:should_fallback", "false"),
    ].map { #"<meta property="\#($0.0)" content="\#($0.1)">"# }.joined(separator: "\n")

    /// The checks of the contract but its failures (``failsWithATypedError(_:)``).
    public enum Check: String, CaseIterable, Sendable {
        case fetchesThePageWithThePreferHeader
        case followsRedirectsAndKeepsTheAskedURLAsSource
        case refusesSchemesItCannotFetch
        case aFailedFetchIsAFailedNavigationEvent
    }

    /// Runs `check`.
    public func run(_ check: Check) async throws {
        switch check {
        case .fetchesThePageWithThePreferHeader: try await fetchesThePageWithThePreferHeader()
        case .followsRedirectsAndKeepsTheAskedURLAsSource: try await followsRedirectsAndKeepsTheAskedURLAsSource()
        case .refusesSchemesItCannotFetch: await refusesSchemesItCannotFetch()
        case .aFailedFetchIsAFailedNavigationEvent: try await aFailedFetchIsAFailedNavigationEvent()
        }
    }

    /// Every failure and the code of its typed error: a page's path (`/refused`: a port nothing listens on).
    public static let failures: [(path: String, code: String)] = [
        ("/loop", "too_many_redirects"), ("/to-ftp", "unsupported_scheme"), ("/gone", "http_status_410"),
        ("/nowhere", "http_status_404"), ("/slow", "timeout"), ("/huge", "too_large"), ("/big", "too_large"),
        ("/refused", "network_error"),
    ]

    private func withServer(_ body: (LoopbackHTTPServer) async throws -> Void) async throws {
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

    /// The page is fetched once, with `Prefer-Html-Meta-Tags: al`, and its tags read.
    public func fetchesThePageWithThePreferHeader() async throws {
        try await withServer { server in
            let link = try await resolver().appLink(for: server.url("/article"))
            #expect(link.targets.map { $0.url?.absoluteString } == ["example-ios://article/1"])
            #expect(link.webURL == nil)
            #expect(link.sourceURL == server.url("/article"))
            #expect(server.requests.first?.headers["prefer-html-meta-tags"] == "al")
        }
    }

    /// Redirects are followed, each hop with the header, and the link keeps the URL asked for as its source.
    public func followsRedirectsAndKeepsTheAskedURLAsSource() async throws {
        try await withServer { server in
            let link = try await resolver().appLink(for: server.url("/moved"))
            #expect(link.targets.count == 1)
            #expect(link.sourceURL == server.url("/moved"))
            #expect(server.requests.map(\.path) == ["/moved", "/article"])
            #expect(server.requests.allSatisfy { $0.headers["prefer-html-meta-tags"] == "al" })
        }
    }

    /// A failure of ``failures`` is an ``AppLinkError`` with its code.
    public func failsWithATypedError(_ failure: (path: String, code: String)) async throws {
        let (path, code) = failure
        try await withServer { server in
            // Only the page that never answers gets a short deadline, so a loaded machine cannot turn the
            // other cases into timeouts.
            let timeout: Duration = path == "/slow" ? .milliseconds(300) : .seconds(30)
            let resolver = resolver(timeout: timeout, redirects: 3, bytes: 100_000)
            let url = path == "/refused" ? LoopbackHTTPServer.closedPortURL(path: "/refused") : server.url(path)
            let error = await #expect(throws: AppLinkError.self) { try await resolver.appLink(for: url) }
            #expect(error?.code == code, "\(error.map { "\($0)" } ?? "no error"); \(server.requests.map(\.path))")
        }
    }

    /// A URL of a scheme the resolver cannot fetch is refused before anything is sent.
    public func refusesSchemesItCannotFetch() async {
        let error = await #expect(throws: AppLinkError.self) {
            try await resolver().appLink(for: URL(string: "file:///etc/passwd")!)
        }
        #expect(error?.code == "unsupported_scheme")
    }

    /// A navigation whose fetch fails posts a failed `al_nav_out` naming the host.
    public func aFailedFetchIsAFailedNavigationEvent() async throws {
        try await withServer { server in
            let bus = MeasurementEventBus(clock: ManualEventClock(milliseconds: 1_763_683_200_000))
            let sink = MemoryEventSink()
            bus.attach(sink)
            let result = await AppLinkNavigation.navigate(
                to: server.url("/gone"), resolver: resolver(), canOpen: { _ in true }, open: { _ in true }, on: bus)
            #expect(result.error == "http_status_410")
            await bus.flush()
            let fields = sink.events.first?.fields
            #expect(fields?["type"] == "fail")
            #expect(fields?["success"] == "0")
            #expect(fields?["sourceURLHost"] == "127.0.0.1")
        }
    }
}

extension LoopbackHTTPServer {
    /// A URL on a port nothing listens on: one the system gave a socket of ours, closed at once. (Not a stopped
    /// LoopbackHTTPServer: its accept thread may outlive its socket and take the connections of a server made next
    /// on the same descriptor number.)
    public static func closedPortURL(path: String) -> URL {
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
        return URL(string: "http://127.0.0.1:\(bound ? UInt16(bigEndian: address.sin_port) : 9)\(path)")!
    }
}
