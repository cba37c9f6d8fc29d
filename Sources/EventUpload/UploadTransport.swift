import Foundation

#if canImport(FoundationNetworking)
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

/// Sends one gzip-compressed NDJSON body to the collector. ``URLSessionUploadTransport`` is the real one;
/// tests may script answers.
public protocol UploadTransport: Sendable {
    /// Sends `body` (gzip of NDJSON lines) with `writeKey` as the HTTP Basic user name.
    /// - Throws: for a network failure (no answer): the uploader retries it.
    func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws -> UploadResponse
}

/// `POST` with Foundation's `URLSession` (FoundationNetworking on Linux): nothing of the server stack, so an
/// iOS app can embed the uploader.
public struct URLSessionUploadTransport: UploadTransport {
    private let session: URLSession

    /// Creates a transport on `session` (an ephemeral session by default: no cookies, no cache).
    public init(session: URLSession = URLSession(configuration: .ephemeral)) {
        self.session = session
    }

    /// Sends `body` as `application/x-ndjson` with `Content-Encoding: gzip`.
    public func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws
        -> UploadResponse
    {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        let seconds = timeout.components
        request.timeoutInterval = Double(seconds.seconds) + Double(seconds.attoseconds) / 1e18
        request.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
        request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let credentials = Data((writeKey + ":").utf8).base64EncodedString()
        request.setValue("Basic " + credentials, forHTTPHeaderField: "Authorization")
        request.httpBody = body
        let (data, response) = try await exchange(request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return UploadResponse(
            status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After"), body: data)
    }

    private func exchange(_ request: URLRequest) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }
            task.resume()
        }
    }
}
