import Foundation
import MeasurementEvents

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 and a port the system picks, for resolver tests: each request
/// gets one canned response by path; the connection then closes.
public final class LoopbackHTTPServer: Sendable {
    /// What the server answers on one path.
    public enum Response: Sendable {
        /// A status line, and a body (text/html).
        case page(status: Int, body: String)
        /// A 302 to another path or URL.
        case redirect(to: String)
        /// Never answers: the connection stays open until the server stops (a slow page).
        case hang
        /// A body of `bytes` bytes sent in chunks without a Content-Length (an oversized page).
        case stream(bytes: Int)
        /// A status line, header fields of its own (a `Retry-After`) and a JSON body (a collector's receipt).
        case json(status: Int, headers: [String: String], body: String)
        /// A status, a `Content-Type` (none when `nil`) and a body.
        case file(status: Int, contentType: String?, body: String)
        /// What `answer` says for the request (its headers): a page that varies by `User-Agent` or `Prefer`.
        case varying(@Sendable (Request) -> Response)
    }

    /// One request the server received.
    public struct Request: Sendable {
        /// The request target.
        public var path: String
        /// The header fields, names lowercased.
        public var headers: [String: String]
        /// The body, when the request said its length (`Content-Length`).
        public var body: [UInt8]
    }

    /// The port the system picked.
    public let port: UInt16
    private let listener: Int32
    private let routes: [String: Response]
    private let state = StateLock<(requests: [Request], open: Set<Int32>, stopped: Bool)>(([], [], false))

    /// Starts listening; `stop()` ends it.
    public init(routes: [String: Response]) throws {
        self.routes = routes
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
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

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The requests received so far.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Stops accepting and closes every open connection. The listening socket is shut down here and closed by the
    /// accept thread as it ends: closed here, its descriptor number could go to a server made next while this
    /// thread still waits in `accept` on it, and take that server's connections.
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
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while headEnd(of: received) == nil {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return finish(client) }
            received += buffer[0..<count]
            if received.count > 65_536 { return finish(client) }
        }
        let bodyStart = headEnd(of: received) ?? received.count
        let lines = String(decoding: received[..<bodyStart], as: UTF8.self).components(separatedBy: "\r\n")
        let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(received[bodyStart...])
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        while body.count < length {
            let count = read(client, &buffer, min(buffer.count, length - body.count))
            guard count > 0 else { return finish(client) }
            body += buffer[0..<count]
        }
        let request = Request(path: path, headers: headers, body: body)
        state.withLock { $0.requests.append(request) }
        var response = routes[path] ?? .page(status: 404, body: "not found")
        while case .varying(let answer) = response { response = answer(request) }

        switch response {
        case .page(let status, let body):
            let bytes = Array(body.utf8)
            sendText(
                client,
                "HTTP/1.1 \(status) X\r\nContent-Type: text/html\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
            )
            _ = sendBytes(client, bytes)
        case .redirect(let location):
            sendText(
                client, "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        case .json(let status, let fields, let body):
            let bytes = Array(body.utf8)
            let extra = fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
            sendText(
                client,
                "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\n\(extra)Content-Length: \(bytes.count)\r\n"
                    + "Connection: close\r\n\r\n")
            _ = sendBytes(client, bytes)
        case .file(let status, let contentType, let body):
            let bytes = Array(body.utf8)
            let type = contentType.map { "Content-Type: \($0)\r\n" } ?? ""
            sendText(
                client,
                "HTTP/1.1 \(status) X\r\n\(type)Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n")
            _ = sendBytes(client, bytes)
        case .varying:
            break  // resolved above
        case .hang:
            return  // left open; stop() closes it
        case .stream(let total):
            sendText(client, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n")
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 16_384)
            var sent = 0
            while sent < total, sendBytes(client, Array(chunk.prefix(total - sent))) { sent += chunk.count }
        }
        finish(client)
    }

    /// Where the body starts in `received`: after the blank line that ends the head; `nil` before that line.
    private func headEnd(of received: [UInt8]) -> Int? {
        let marker = Array("\r\n\r\n".utf8)
        guard received.count >= marker.count else { return nil }
        for start in 0...(received.count - marker.count)
        where received[start..<start + marker.count].elementsEqual(marker) {
            return start + marker.count
        }
        return nil
    }

    private func finish(_ client: Int32) {
        let owned = state.withLock { $0.open.remove(client) != nil }
        if owned {
            shutdown(client, Int32(SHUT_WR))
            close(client)
        }
    }

    private func sendText(_ client: Int32, _ text: String) {
        _ = sendBytes(client, Array(text.utf8))
    }

    private func sendBytes(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
