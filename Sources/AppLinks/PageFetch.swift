import Dispatch
import Foundation
import MeasurementEvents

#if (ALSTATS_URLSESSION || !Server) && canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if ALSTATS_URLSESSION || !Server
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
            if !(200..<300).contains(state.status) {
                return (state.continuation, .failure(.httpStatus(state.status)))
            }
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
#endif
