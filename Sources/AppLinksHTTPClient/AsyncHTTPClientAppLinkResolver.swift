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
        try AppLinkError.requireWebScheme(url)
        let (client, limits, timeout) = (self.client, Limits(of: self), self.timeout)
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        // The client's deadline covers each request up to its answer's head; the race covers the bodies too.
        let outcome = await withTaskGroup(of: Result<[UInt8], AppLinkError>?.self) { group in
            group.addTask { await Self.follow(url, client: client, limits: limits, deadline: deadline) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled ? nil : .failure(.timedOut(seconds: timeout.inSeconds))
            }
            defer { group.cancelAll() }
            while let result = await group.next() {
                if let result { return result }
            }
            return Result<[UInt8], AppLinkError>.failure(.network("the fetch was cancelled"))
        }
        return try outcome.get()
    }

    /// The limits of one fetch, as the tasks of the race take them.
    private struct Limits {
        var maximumRedirects: Int
        var maximumBytes: Int
        var timeoutSeconds: Double
        var userAgent: String?

        init(of resolver: AsyncHTTPClientAppLinkResolver) {
            maximumRedirects = resolver.maximumRedirects
            maximumBytes = resolver.maximumBytes
            timeoutSeconds = resolver.timeout.inSeconds
            userAgent = resolver.userAgent
        }
    }

    /// Fetches `url`, following its redirects, and reads the final answer's body.
    private static func follow(_ url: URL, client: HTTPClient, limits: Limits, deadline: NIODeadline) async -> Result<
        [UInt8], AppLinkError
    > {
        var current = url
        var redirects = 0
        while true {
            var request = HTTPClientRequest(url: current.absoluteString)
            request.headers.add(name: "Prefer-Html-Meta-Tags", value: "al")
            if let userAgent = limits.userAgent { request.headers.add(name: "User-Agent", value: userAgent) }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline)
            } catch {
                return .failure(map(error, limits: limits))
            }
            if let next = redirectTarget(of: response, from: current) {
                redirects += 1
                guard redirects <= limits.maximumRedirects else {
                    return .failure(.tooManyRedirects(limit: limits.maximumRedirects))
                }
                do {
                    try AppLinkError.requireWebScheme(next)
                } catch {
                    return .failure(error)
                }
                // The redirect's own body is dropped unread: AsyncHTTPClient closes its connection.
                current = next
                continue
            }
            guard (200..<300).contains(response.status.code) else {
                return .failure(.httpStatus(Int(response.status.code)))
            }
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init),
                length > limits.maximumBytes
            {
                return .failure(.tooLarge(limit: limits.maximumBytes))
            }
            var body: [UInt8] = []
            do {
                for try await chunk in response.body {
                    guard body.count + chunk.readableBytes <= limits.maximumBytes else {
                        // Leaving the loop drops the rest of the transfer.
                        return .failure(.tooLarge(limit: limits.maximumBytes))
                    }
                    body.append(contentsOf: chunk.readableBytesView)
                }
            } catch {
                return .failure(map(error, limits: limits))
            }
            return .success(body)
        }
    }

    /// Where a 301, 302, 303, 307 or 308 answer with a `Location` sends the fetch; `nil` for any other answer.
    private static func redirectTarget(of response: HTTPClientResponse, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.status.code),
            let location = response.headers.first(name: "Location"),
            let target = URL(string: location, relativeTo: url)
        else { return nil }
        return target.absoluteURL
    }

    private static func map(_ error: any Error, limits: Limits) -> AppLinkError {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout {
            return .timedOut(seconds: limits.timeoutSeconds)
        }
        return .network(String(describing: error))
    }
}
