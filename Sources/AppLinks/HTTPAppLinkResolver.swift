import Dispatch
import Foundation
import MeasurementEvents

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches a page over HTTP(S) and reads its App Link meta tags.
///
/// Every request carries `Prefer-Html-Meta-Tags: al` (servers may answer with just the head). Redirects
/// are followed up to ``maximumRedirects``, to http and https URLs only; the whole fetch must end within ``timeout``; the body is read
/// up to ``maximumBytes`` and the transfer is cancelled as soon as it grows past that. The AppLink's
/// source URL is the URL asked for, not the one redirected to.
///
/// ```swift
/// let resolver = HTTPAppLinkResolver(platform: .android, timeout: .seconds(5))
/// let link = try await resolver.appLink(for: URL(string: "https://example.com/article")!)
/// ```
public struct HTTPAppLinkResolver: AppLinkResolving {
    /// The platform targets are chosen for.
    public var platform: AppLinkPlatform
    /// The longest a fetch may take, redirects included.
    public var timeout: Duration
    /// The most redirects followed.
    public var maximumRedirects: Int
    /// The most bytes of body read.
    public var maximumBytes: Int

    /// Creates a resolver.
    /// - Parameters:
    ///   - platform: which targets to keep (`iphone` by default).
    ///   - timeout: the limit for one fetch (10 s by default).
    ///   - maximumRedirects: redirects followed (5 by default).
    ///   - maximumBytes: body bytes read (1 MiB by default).
    public init(
        platform: AppLinkPlatform = .iphone, timeout: Duration = .seconds(10), maximumRedirects: Int = 5,
        maximumBytes: Int = 1 << 20
    ) {
        self.platform = platform
        self.timeout = timeout
        self.maximumRedirects = maximumRedirects
        self.maximumBytes = maximumBytes
    }

    /// Fetches `url` and returns its AppLink.
    /// - Throws: ``AppLinkError/unsupportedScheme(_:)``, ``AppLinkError/httpStatus(_:)``,
    ///   ``AppLinkError/tooManyRedirects(limit:)``, ``AppLinkError/timedOut(seconds:)``,
    ///   ``AppLinkError/tooLarge(limit:)`` or ``AppLinkError/network(_:)``.
    public func appLink(for url: URL) async throws(AppLinkError) -> AppLink {
        let body = try await fetch(url)
        return AppLinkMetadata(html: body).appLink(sourceURL: url, platform: platform)
    }

    /// The page body of `url`, within the limits.
    public func fetch(_ url: URL) async throws(AppLinkError) -> [UInt8] {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupportedScheme(url.scheme ?? "")
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        // URLSession's own timeouts are whole seconds on some platforms; they are only a backstop here.
        // The deadline that counts is the fetch's own timer (PageFetch.start).
        let backstop = seconds.rounded(.up) + 1
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: backstop)
        request.setValue("al", forHTTPHeaderField: "Prefer-Html-Meta-Tags")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = backstop
        configuration.timeoutIntervalForResource = backstop
        let fetch = PageFetch(maximumBytes: maximumBytes, maximumRedirects: maximumRedirects, timeoutSeconds: seconds)
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

/// The delegate of one fetch: counts redirects, enforces the size limit while data arrives, and resumes
/// the waiting task once.
///
/// `@unchecked Sendable`: URLSession calls it on its delegate queue while the resolver's task waits; every
/// mutable field lives in `state`, behind a StateLock (a Mutex; a pthread mutex under ThreadSanitizer).
final class PageFetch: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var body: [UInt8] = []
        var redirects = 0
        var failure: AppLinkError?
        var status = 0
        var continuation: CheckedContinuation<Result<[UInt8], AppLinkError>, Never>?
    }

    private let maximumBytes: Int
    private let maximumRedirects: Int
    private let timeoutSeconds: Double
    private let state = StateLock(State())

    init(maximumBytes: Int, maximumRedirects: Int, timeoutSeconds: Double) {
        self.maximumBytes = maximumBytes
        self.maximumRedirects = maximumRedirects
        self.timeoutSeconds = timeoutSeconds
    }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<Result<[UInt8], AppLinkError>, Never>) {
        state.withLock { $0.continuation = continuation }
        task.resume()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds) { [weak self, weak task] in
            guard let self else { return }
            let pending = state.withLock { state -> Bool in
                guard state.continuation != nil, state.failure == nil else { return false }
                state.failure = .timedOut(seconds: self.timeoutSeconds)
                return true
            }
            if pending { task?.cancel() }
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let scheme = request.url?.scheme?.lowercased() ?? ""
        let allowed = state.withLock { state -> Bool in
            state.redirects += 1
            if state.redirects > maximumRedirects {
                state.failure = .tooManyRedirects(limit: maximumRedirects)
            } else if scheme != "http" && scheme != "https" {
                // A redirect must not turn a page fetch into a file:// (or other) read.
                state.failure = .unsupportedScheme(scheme)
            }
            return state.failure == nil
        }
        guard allowed else {
            // Not following makes the redirect response final; its completion reports the failure.
            completionHandler(nil)
            return
        }
        var next = request
        next.setValue("al", forHTTPHeaderField: "Prefer-Html-Meta-Tags")
        completionHandler(next)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // Failures are recorded here and the body is then dropped as it arrives (see didReceive data);
        // answering `.cancel` stalls some URLSession implementations until the timeout.
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        state.withLock { state in
            state.status = status
            guard state.failure == nil else { return }
            if !(200..<300).contains(status) {
                state.failure = .httpStatus(status)
            } else if response.expectedContentLength > Int64(maximumBytes) {
                state.failure = .tooLarge(limit: maximumBytes)
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state -> Bool in
            guard state.failure == nil else { return true }
            state.body.append(contentsOf: data)
            if state.body.count > maximumBytes {
                state.failure = .tooLarge(limit: maximumBytes)
                state.body = []
                return true
            }
            return false
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result) = state.withLock {
            state -> (CheckedContinuation<Result<[UInt8], AppLinkError>, Never>?, Result<[UInt8], AppLinkError>) in
            defer { state.continuation = nil }
            if let failure = state.failure { return (state.continuation, .failure(failure)) }
            if let error {
                return (state.continuation, .failure(PageFetch.map(error, timeoutSeconds: timeoutSeconds)))
            }
            if !(200..<300).contains(state.status) { return (state.continuation, .failure(.httpStatus(state.status))) }
            return (state.continuation, .success(state.body))
        }
        continuation?.resume(returning: result)
    }

    static func map(_ error: any Error, timeoutSeconds: Double) -> AppLinkError {
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut: return .timedOut(seconds: timeoutSeconds)
            case .httpTooManyRedirects: return .tooManyRedirects(limit: 0)
            default: return .network(urlError.localizedDescription)
            }
        }
        return .network(String(describing: error))
    }
}
