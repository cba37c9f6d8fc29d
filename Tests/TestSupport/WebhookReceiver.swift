import Foundation
import MeasurementEvents

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An incoming webhook on 127.0.0.1 and a port the system picks, as a chat tool runs one: it reads each request
/// whole (head and `Content-Length` body), keeps it, and answers as ``answer`` says, then closes the connection.
///
/// ```swift
/// let receiver = try WebhookReceiver()
/// // configure the notifier with receiver.url("/hooks/T0/B0/secret")
/// let posts = try await receiver.requests(atLeast: 1)
/// receiver.answer = .status(500)   // the next ones fail
/// ```
public final class WebhookReceiver: Sendable {
    /// How the receiver answers.
    public enum Answer: Sendable {
        /// This status and `ok`, with `Retry-After` when given.
        case status(Int, retryAfter: Int? = nil)
        /// Never: the connection stays open without an answer until the receiver stops.
        case hang
    }

    /// One request received.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// The header fields, names lowercased.
        public var headers: [String: String]
        public var body: String

        /// The body as JSON (`nil` when it is not).
        public var json: JSONValue? { try? JSONValue.parse(body) }
    }

    private struct State {
        var answer: Answer = .status(200)
        var requests: [Request] = []
        var open: Set<Int32> = []
        var stopped = false
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// The port the system picked.
    public let port: UInt16
    private let listener: Int32
    private let state = StateLock(State())

    /// Starts listening on `port` (0: one the system picks); ``stop()`` ends it (call it: the accepting thread keeps
    /// the receiver alive until then). A port given again after a receiver on it stopped is a webhook that comes back.
    public init(port requested: UInt16 = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requested.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The URL of `path` on this receiver.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// How the next requests are answered.
    public var answer: Answer {
        get { state.withLock { $0.answer } }
        set { state.withLock { $0.answer = newValue } }
    }

    /// The requests received so far.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// The requests, once there are at least `count`.
    /// - Throws: ``Timeout`` when they have not come within `limit`, which only turns a hang into a failure.
    public func requests(atLeast count: Int, within limit: Duration = .seconds(60)) async throws -> [Request] {
        let arrived: Bool = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let ready = self.state.withLock { state -> Bool in
                        if state.requests.count >= count { return true }
                        state.waiters.append((count, continuation))
                        return false
                    }
                    if ready { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            if !first { self.releaseWaiters(all: true) }
            group.cancelAll()
            return first
        }
        guard arrived else { throw Timeout(count: count, received: requests.count) }
        return requests
    }

    /// The receiver got fewer requests than awaited in time.
    public struct Timeout: Error, CustomStringConvertible {
        public var count: Int
        public var received: Int
        public var description: String { "waited for \(count) webhook requests, got \(received)" }
    }

    /// Stops accepting and closes every open connection (a hanging one too).
    public func stop() {
        let (wasStopped, open) = state.withLock { state -> (Bool, Set<Int32>) in
            defer {
                state.stopped = true
                state.open = []
            }
            return (state.stopped, state.open)
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in open {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
        releaseWaiters(all: true)
    }

    private func releaseWaiters(all: Bool) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let count = state.requests.count
            let (due, waiting) = (
                state.waiters.filter { all || $0.count <= count }, state.waiters.filter { !all && $0.count > count }
            )
            state.waiters = waiting
            return due.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let accepted = state.withLock { state -> Bool in
                if state.stopped { return false }
                state.open.insert(client)
                return true
            }
            guard accepted else {
                close(client)
                return
            }
            Thread.detachNewThread { [self] in handle(client) }
        }
    }

    private func handle(_ client: Int32) {
        guard let request = readRequest(client) else { return finish(client) }
        let answer = state.withLock { state -> Answer in
            state.requests.append(request)
            return state.answer
        }
        releaseWaiters(all: false)
        switch answer {
        case .hang:
            return  // left open; stop() closes it
        case .status(let status, let retryAfter):
            let extra = retryAfter.map { "Retry-After: \($0)\r\n" } ?? ""
            let text =
                "HTTP/1.1 \(status) X\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\(extra)"
                + "Connection: close\r\n\r\nok"
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            finish(client)
        }
    }

    /// The request on `client`: its head, then as many body bytes as its `Content-Length` says.
    private func readRequest(_ client: Int32) -> Request? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var head: (request: Request, bodyStart: Int, length: Int)?
        while true {
            if let head, received.count - head.bodyStart >= head.length {
                var request = head.request
                request.body = String(
                    decoding: received[head.bodyStart..<(head.bodyStart + head.length)], as: UTF8.self)
                return request
            }
            let count = read(client, &buffer, buffer.count)
            guard count > 0, received.count < 1 << 20 else { return nil }
            received += buffer[0..<count]
            if head == nil, let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                head = Self.head(
                    String(decoding: received[..<end.lowerBound], as: UTF8.self), bodyStart: end.upperBound)
            }
        }
    }

    private static func head(_ text: String, bodyStart: Int) -> (request: Request, bodyStart: Int, length: Int) {
        let lines = text.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ").map(String.init) ?? []
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let request = Request(
            method: parts.first ?? "", path: parts.count > 1 ? parts[1] : "/", headers: headers, body: "")
        return (request, bodyStart, Int(headers["content-length"] ?? "0") ?? 0)
    }

    private func finish(_ client: Int32) {
        let owned = state.withLock { $0.open.remove(client) != nil }
        if owned {
            shutdown(client, Int32(SHUT_WR))
            close(client)
        }
    }
}
