import AppLinks
import AsyncHTTPClient
import Foundation
import MeasurementEvents
import NIOCore
import NIOHTTP1

/// Fetches a page with AsyncHTTPClient and reads its App Link meta tags: `HTTPAppLinkResolver`'s counterpart on
/// Linux, with the same limits and the same errors.
///
/// Every request carries `Prefer-Html-Meta-Tags: al` (servers may answer with just the head). Redirects are
/// followed up to ``maximumRedirects``, to http and https URLs only; the whole fetch, redirects and body included,
/// must end within ``timeout``; the body is read up to ``maximumBytes`` and the transfer is dropped as soon as it
/// grows past that. The AppLink's source URL is the URL asked for, not the one redirected to.
///
/// ```swift
/// import AppLinks
/// import AppLinksHTTPClient
///
/// let resolver = AsyncHTTPClientAppLinkResolver(platform: .android, timeout: .seconds(5))
/// let link = try await resolver.appLink(for: URL(string: "https://example.com/article")!)
/// ```
public struct AsyncHTTPClientAppLinkResolver: AppLinkPageFetching {
    /// The client of every resolver made without one, for the life of the process (never shut down). It follows
    /// no redirect itself (the resolver does, to count them and to check each target's scheme) and does not retry
    /// a refused connection until the deadline: a host that is down is a `network_error` at once.
    public static let pageClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The platform targets are chosen for.
    public var platform: AppLinkPlatform
    /// The longest a fetch may take, redirects included.
    public var timeout: Duration
    /// The most redirects followed.
    public var maximumRedirects: Int
    /// The most bytes of body read.
    public var maximumBytes: Int
    /// The `User-Agent` every request sends; `nil` for none.
    public var userAgent: String?
    private let client: HTTPClient

    /// Creates a resolver.
    /// - Parameters:
    ///   - platform: which targets to keep (`iphone` by default).
    ///   - timeout: the limit for one fetch (10 s by default).
    ///   - maximumRedirects: redirects followed (5 by default).
    ///   - maximumBytes: body bytes read (1 MiB by default).
    ///   - userAgent: the `User-Agent` of every request (a tool's own, such as `alstats-resolve/0.1.0`, which a
    ///     hosted link counts as a tool, not a person); none by default.
    ///   - client: the client that fetches (``pageClient`` by default); one of your own stays yours to shut down,
    ///     and should follow no redirects itself.
    public init(
        platform: AppLinkPlatform = .iphone, timeout: Duration = .seconds(10), maximumRedirects: Int = 5,
        maximumBytes: Int = 1 << 20, userAgent: String? = nil,
        client: HTTPClient = AsyncHTTPClientAppLinkResolver.pageClient
    ) {
        self.platform = platform
        self.timeout = timeout
        self.maximumRedirects = maximumRedirects
        self.maximumBytes = maximumBytes
        self.userAgent = userAgent
        self.client = client
    }

    /// The page body of `url`, within the limits.
    public func fetch(_ url: URL) async throws(AppLinkError) -> [UInt8] {
        let get = BoundedGet(
            client: client, maximumRedirects: maximumRedirects, maximumBytes: maximumBytes, timeout: timeout)
        let headers = [("Prefer-Html-Meta-Tags", "al")] + (userAgent.map { [("User-Agent", $0)] } ?? [])
        let response = try await get.run(url, headers: headers, followRedirects: true)
        guard (200..<300).contains(response.status) else { throw .httpStatus(response.status) }
        return response.body
    }
}
