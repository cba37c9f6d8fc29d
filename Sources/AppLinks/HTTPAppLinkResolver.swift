import Foundation
import MeasurementEvents

#if (ALSTATS_URLSESSION || !Server) && canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if ALSTATS_URLSESSION || !Server
/// Fetches a page over HTTP(S) and reads its App Link meta tags.
///
/// Every request carries `Prefer-Html-Meta-Tags: al` (servers may answer with just the head). Redirects
/// are followed up to ``maximumRedirects``, to http and https URLs only; the whole fetch must end within
/// ``timeout``; the body is read up to ``maximumBytes`` and the transfer is cancelled as soon as it grows
/// past that. The AppLink's source URL is the URL asked for, not the one redirected to.
///
/// It fetches with Foundation's `URLSession` and is built on Apple platforms; on Linux its counterpart is
/// `AsyncHTTPClientAppLinkResolver` (module `AppLinksHTTPClient`), with the same limits and errors, so that no
/// process there loads FoundationNetworking and the libcurl beneath it.
///
/// ```swift
/// let resolver = HTTPAppLinkResolver(platform: .android, timeout: .seconds(5))
/// let link = try await resolver.appLink(for: URL(string: "https://example.com/article")!)
/// ```
public struct HTTPAppLinkResolver: AppLinkPageFetching {
    /// The platform targets are chosen for.
    public var platform: AppLinkPlatform
    /// The longest a fetch may take, redirects included.
    public var timeout: Duration
    /// The most redirects followed.
    public var maximumRedirects: Int
    /// The most bytes of body read.
    public var maximumBytes: Int
    /// The `User-Agent` every request sends; `nil` for URLSession's own.
    public var userAgent: String?

    /// Creates a resolver.
    /// - Parameters:
    ///   - platform: which targets to keep (`iphone` by default).
    ///   - timeout: the limit for one fetch (10 s by default).
    ///   - maximumRedirects: redirects followed (5 by default).
    ///   - maximumBytes: body bytes read (1 MiB by default).
    ///   - userAgent: the `User-Agent` of every request (a tool's own, such as `alstats-resolve/0.1.0`, which a
    ///     hosted link counts as a tool, not a person); URLSession's by default.
    public init(
        platform: AppLinkPlatform = .iphone, timeout: Duration = .seconds(10), maximumRedirects: Int = 5,
        maximumBytes: Int = 1 << 20, userAgent: String? = nil
    ) {
        self.platform = platform
        self.timeout = timeout
        self.maximumRedirects = maximumRedirects
        self.maximumBytes = maximumBytes
        self.userAgent = userAgent
    }

    /// The page body of `url`, within the limits.
    public func fetch(_ url: URL) async throws(AppLinkError) -> [UInt8] {
        try AppLinkError.requireWebScheme(url)
        let seconds = timeout.inSeconds
        // URLSession's own timeouts are whole seconds on some platforms; they are only a backstop here.
        // The deadline that counts is the fetch's own timer (PageFetch.start).
        let backstop = seconds.rounded(.up) + 1
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: backstop)
        request.setValue("al", forHTTPHeaderField: "Prefer-Html-Meta-Tags")
        if let userAgent { request.setValue(userAgent, forHTTPHeaderField: "User-Agent") }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        let fetch = PageFetch(
            maximumBytes: maximumBytes, maximumRedirects: maximumRedirects, timeoutSeconds: seconds)
        let session = URLSession(configuration: configuration, delegate: fetch, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                fetch.start(task, continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }
}
#endif
