import AppLinks
import AppLinksCheck
import AsyncHTTPClient
import Foundation

/// `alstats check`'s fetches on AsyncHTTPClient, with the App Link resolver's client, limits and errors
/// (``AsyncHTTPClientAppLinkResolver``): the association files without following redirects, the page as the resolver
/// fetches it.
///
/// ```swift
/// import AppLinksCheck
/// import AppLinksHTTPClient
///
/// let checker = LinkChecker(fetcher: AsyncHTTPClientLinkCheckFetcher(), userAgent: "alstats-check/0.1.0")
/// ```
public struct AsyncHTTPClientLinkCheckFetcher: LinkCheckFetching {
    /// The longest a fetch may take, redirects included.
    public var timeout: Duration
    /// The most redirects followed when they are followed.
    public var maximumRedirects: Int
    private let client: HTTPClient

    /// A fetcher with the resolver's defaults: 10 s, 5 redirects, its client (which follows no redirect itself).
    public init(
        timeout: Duration = .seconds(10), maximumRedirects: Int = 5,
        client: HTTPClient = AsyncHTTPClientAppLinkResolver.pageClient
    ) {
        self.timeout = timeout
        self.maximumRedirects = maximumRedirects
        self.client = client
    }

    public func get(
        _ url: URL, headers: [String: String], followRedirects: Bool, maximumBytes: Int
    ) async throws(AppLinkError) -> LinkCheckResponse {
        let get = BoundedGet(
            client: client, maximumRedirects: maximumRedirects, maximumBytes: maximumBytes, timeout: timeout)
        return try await get.run(
            url, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            followRedirects: followRedirects)
    }
}
