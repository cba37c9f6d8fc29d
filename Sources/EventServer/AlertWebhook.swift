import AsyncHTTPClient
import Foundation
import MeasurementEvents
import NIOCore
import ServiceLifecycle

/// Posts one notice to the alert webhook with AsyncHTTPClient, within a time limit on the notifier's clock.
///
/// The URL is a secret: an outcome names what went wrong in a few fixed words (``Outcome/failed(reason:retryAfter:)``),
/// never the URL or a message of the client that could hold it.
struct AlertWebhook: Sendable {
    /// How a post ended.
    enum Outcome: Sendable, Hashable {
        /// The webhook answered 2xx.
        case delivered
        /// It did not: `reason` is `status_NNN` (any other answer), `timeout` (no answer within the limit),
        /// `unreachable` (no connection), `connection_closed` (closed before an answer) or `network`; `retryAfter`
        /// is the wait its `Retry-After` asked for.
        case failed(reason: String, retryAfter: Duration?)
        /// The server shut down and the webhook had not answered within ``shutdownGrace``: whether it took the post is
        /// not known.
        case abandoned
    }

    let url: URL
    let client: HTTPClient
    let clock: any AlertClock
    let timeout: Duration
    /// How long a post under way when the server shuts down gracefully may still take: one the webhook answers is
    /// recorded, so that the next server does not post it again.
    var shutdownGrace: Duration = .seconds(2)

    /// A client for webhooks: it follows no redirect (a webhook that moved is a failure to see, not to follow with a
    /// different method) and does not retry a refused connection until its deadline.
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Posts `body` (JSON); the outcome once the webhook answered, failed, or let ``timeout`` pass on ``clock``.
    func post(_ body: [UInt8]) async -> Outcome {
        let deadline = clock.nowMilliseconds() + timeout.wholeMilliseconds
        let (url, client, clock, grace) = (self.url, self.client, self.clock, shutdownGrace)
        // A backstop on the real clock too, for a clock that never reaches the deadline (a test's).
        let backstop = NIODeadline.now() + .seconds(max(60, timeout.components.seconds))
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { await Self.send(body, to: url, client: client, deadline: backstop) }
            group.addTask {
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    return nil
                }
                return .failed(reason: "timeout", retryAfter: nil)
            }
            group.addTask {
                // Not cut at once by a graceful shutdown: the answer may be on its way.
                guard (try? await gracefulShutdown()) != nil else { return nil }
                try? await Task.sleep(for: grace)
                return Task.isCancelled ? nil : .abandoned
            }
            defer { group.cancelAll() }
            while let outcome = await group.next() {
                if let outcome { return outcome }
            }
            return .failed(reason: "network", retryAfter: nil)
        }
    }

    private static func send(_ body: [UInt8], to url: URL, client: HTTPClient, deadline: NIODeadline) async -> Outcome {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "alstats-alerts")
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, deadline: deadline)
            // The answer's body is read (and dropped) so that the connection can be reused.
            _ = try? await response.body.collect(upTo: 64 << 10)
            let status = Int(response.status.code)
            if (200..<300).contains(status) { return .delivered }
            let retryAfter = response.headers.first(name: "Retry-After").flatMap(Self.retryAfter)
            return .failed(reason: "status_\(status)", retryAfter: retryAfter)
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout: return .failed(reason: "timeout", retryAfter: nil)
            case .connectTimeout: return .failed(reason: "unreachable", retryAfter: nil)
            case .remoteConnectionClosed: return .failed(reason: "connection_closed", retryAfter: nil)
            default: return .failed(reason: "network", retryAfter: nil)
            }
        } catch {
            // Refused connections, name resolution and TLS failures: NIO's errors, which may name the host.
            return .failed(reason: "unreachable", retryAfter: nil)
        }
    }

    /// A `Retry-After` of delta-seconds (`120`), up to an hour; `nil` for any other value.
    static func retryAfter(_ value: String) -> Duration? {
        guard let seconds = Int64(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(min(seconds, 3_600))
    }
}
