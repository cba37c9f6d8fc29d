import Foundation
import MeasurementEvents

#if (ALSTATS_URLSESSION || !Server) && canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the collector answered to one request.
public struct UploadResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// The `Retry-After` header, when there was one.
    public var retryAfter: String?
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, retryAfter: String? = nil, body: Data = Data()) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
    }
}

/// Sends one gzip-compressed NDJSON body to the collector: `URLSessionUploadTransport` on Apple platforms,
/// `AsyncHTTPClientUploadTransport` (module `EventUploadHTTPClient`) on Linux; tests may script answers.
public protocol UploadTransport: Sendable {
    /// Sends `body` (gzip of NDJSON lines) with `writeKey` as the HTTP Basic user name.
    /// - Throws: for a network failure (no answer): the uploader retries it.
    func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws -> UploadResponse
}

#if ALSTATS_URLSESSION || !Server
/// `POST` with Foundation's `URLSession`: nothing of the server stack, so an iOS app can embed the uploader. It is
/// built on Apple platforms; on Linux, where `URLSession` (libcurl beneath) sends a request again without its body
/// after a dropped connection, the transport is `AsyncHTTPClientUploadTransport`.
///
/// A 401 or 403 with `WWW-Authenticate` reaches URLSession as an authentication challenge, and on Linux a
/// session without a delegate never completes such a task; the transport's own delegate declines every
/// challenge and answers with the challenge's status, so a refused key pauses the upload instead of hanging it.
public struct URLSessionUploadTransport: UploadTransport {
    private let session: URLSession
    private let challenges: ChallengeDecliner

    /// Creates a transport on a session of `configuration` (ephemeral by default: no cookies, no cache).
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        challenges = ChallengeDecliner()
        session = URLSession(configuration: configuration, delegate: challenges, delegateQueue: nil)
    }

    /// Sends `body` as `application/x-ndjson` with `Content-Encoding: gzip`.
    public func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws
        -> UploadResponse
    {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.timeoutInterval = timeout.inSeconds
        request.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
        request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let credentials = Data((writeKey + ":").utf8).base64EncodedString()
        request.setValue("Basic " + credentials, forHTTPHeaderField: "Authorization")
        request.httpBody = body
        return try await exchange(request)
    }

    private func exchange(_ request: URLRequest) async throws -> UploadResponse {
        try await withCheckedThrowingContinuation { continuation in
            let challenges = self.challenges
            let task = session.dataTask(with: request) { data, response, error in
                if let http = response as? HTTPURLResponse {
                    continuation.resume(
                        returning: UploadResponse(
                            status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After"),
                            body: data ?? Data()))
                } else if let status = challenges.declinedStatus(for: request) {
                    continuation.resume(returning: UploadResponse(status: status))
                } else {
                    continuation.resume(throwing: error ?? URLError(.badServerResponse))
                }
            }
            task.resume()
        }
    }
}

/// Declines every authentication challenge (the key is already in the request), remembering the status of the
/// answer that raised it, by request.
final class ChallengeDecliner: NSObject, URLSessionTaskDelegate, Sendable {
    private let statuses = StateLock<[String: Int]>([:])

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let status = (challenge.failureResponse as? HTTPURLResponse)?.statusCode ?? 401
        if let request = task.originalRequest {
            statuses.withLock { $0[ChallengeDecliner.key(request)] = status }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// The status of a declined challenge of `request`, once (`nil` when there was none).
    func declinedStatus(for request: URLRequest) -> Int? {
        statuses.withLock { $0.removeValue(forKey: ChallengeDecliner.key(request)) }
    }

    private static func key(_ request: URLRequest) -> String {
        (request.url?.absoluteString ?? "") + " " + (request.value(forHTTPHeaderField: "Authorization") ?? "")
            + " \(request.httpBody?.hashValue ?? 0)"
    }
}
#endif
