import AsyncHTTPClient
import EventUpload
import Foundation
import NIOCore
import NIOHTTP1

/// `POST` with AsyncHTTPClient, the Swift server ecosystem's HTTP client on SwiftNIO: the uploader's transport on
/// Linux, where `URLSession` (libcurl beneath) re-sends a request on a fresh connection without its body after a
/// dropped connection and then waits out the whole timeout, polling its socket.
///
/// Each request is sent whole, with its `Content-Length`, on a pooled connection; a connection that drops or an
/// answer that is lost is an error, which the uploader retries with the whole body on the backoff schedule. The
/// request, its answer and the receipt's body together must finish within the uploader's
/// ``UploadPolicy/requestTimeout``; waiting blocks no thread and spins no core.
///
/// ```swift
/// import EventUpload
/// import EventUploadHTTPClient
///
/// let sink = try HTTPEventSink(configuration, transport: AsyncHTTPClientUploadTransport())
/// ```
public struct AsyncHTTPClientUploadTransport: UploadTransport {
    /// The most bytes of an answer read: a receipt names at most 100 errors, far below this.
    public static let maximumAnswerBytes = 1 << 20

    /// The client of every transport made without one, for the life of the process (never shut down). Unlike
    /// AsyncHTTPClient's `.shared`, it does not retry a refused connection until the request's deadline: the
    /// uploader has its own backoff and give-up time, so a collector that is down is seen as down at once. It
    /// waits at most 5 s for a connection and follows no redirect (a `POST` body is not sent again elsewhere).
    public static let uploadClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(5))
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    private let client: HTTPClient

    /// Creates a transport on `client` (``uploadClient`` by default). A client of your own stays yours to shut down.
    public init(client: HTTPClient = AsyncHTTPClientUploadTransport.uploadClient) {
        self.client = client
    }

    /// Sends `body` as `application/x-ndjson` with `Content-Encoding: gzip` and `writeKey` as the Basic user.
    /// - Throws: when no whole answer arrived within `timeout` (a dropped connection, a reset, a lost answer, a
    ///   timeout): the uploader retries.
    public func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws
        -> UploadResponse
    {
        var request = HTTPClientRequest(url: endpoint.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-ndjson")
        request.headers.add(name: "Content-Encoding", value: "gzip")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Authorization", value: "Basic " + Data((writeKey + ":").utf8).base64EncodedString())
        request.body = .bytes(ByteBuffer(bytes: body))
        let (client, prepared) = (self.client, request)
        // The client's own deadline covers the request up to the answer's head; the race covers the body too.
        return try await withThrowingTaskGroup(of: UploadResponse?.self) { group in
            group.addTask {
                let response = try await client.execute(prepared, timeout: TimeAmount(timeout))
                let answer = try await response.body.collect(upTo: Self.maximumAnswerBytes)
                return UploadResponse(
                    status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                    body: Data(answer.readableBytesView))
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            let first: UploadResponse??
            do {
                first = try await group.next()
            } catch let error as HTTPClientError where error == .deadlineExceeded {
                throw AsyncHTTPClientUploadTransportError.timedOut(timeout)
            } catch {
                throw AsyncHTTPClientUploadTransportError.noAnswer(Self.describe(error))
            }
            guard let first, let response = first else {
                throw AsyncHTTPClientUploadTransportError.timedOut(timeout)
            }
            return response
        }
    }
}

extension AsyncHTTPClientUploadTransport {
    /// `error` in words for a message: SwiftNIO's `IOError` as `Connection refused (errno 111)` (its own text has
    /// one closing parenthesis too many), anything else as it describes itself.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? IOError else { return String(describing: error) }
        let text = strerror(error.errnoCode).map { String(cString: $0) } ?? "error"
        return "\(text) (errno \(error.errnoCode))"
    }
}

/// Why ``AsyncHTTPClientUploadTransport`` had no answer, beside AsyncHTTPClient's own errors.
public enum AsyncHTTPClientUploadTransportError: Error, CustomStringConvertible, LocalizedError {
    /// No whole answer within the request timeout.
    case timedOut(Duration)
    /// The connection failed, dropped or was reset before a whole answer: AsyncHTTPClient's or SwiftNIO's words.
    case noAnswer(String)

    public var description: String {
        switch self {
        case .timedOut(let timeout): "no whole answer within \(timeout)"
        case .noAnswer(let why): why
        }
    }

    public var errorDescription: String? { description }
}
