import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to `127.0.0.1:port` on a blocking socket, for tests that play a slow, greedy or
/// keep-alive client byte by byte: every read waits at most a given time (`poll`), so no test hangs on a server
/// that never answers.
///
/// ```swift
/// let connection = try #require(RawConnection(port: server.port))
/// connection.send("POST /v1/events HTTP/1.1\r\nHost: x\r\n")    // and never the rest
/// let (bytes, closed) = connection.readUntilClosed(within: 5)     // the server's 408, then its close
/// ```
public final class RawConnection {
    private var socket: Int32
    private var buffer: [UInt8] = []

    /// Connects; nil when the connection failed.
    public init?(port: Int) {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            return nil
        }
    }

    deinit { close() }

    /// Closes the connection (again: nothing).
    public func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    /// Sends all of `text`; false when the connection refused it (closed by the server).
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends all of `bytes`; false when the connection refused them.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            sent += written
        }
        return true
    }

    /// Whether the server closed the connection (or sent something) within `seconds`, without reading it.
    public func isReadable(within seconds: Double) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(seconds * 1_000)) > 0
    }

    /// Reads until the server closes the connection or `seconds` pass: what it sent, and whether it closed
    /// (an end of stream or a reset).
    public func readUntilClosed(within seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        var bytes = buffer
        buffer.removeAll()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, isReadable(within: left) else { return (bytes, false) }
            let count = recv(socket, &chunk, chunk.count, 0)
            if count <= 0 { return (bytes, true) }
            bytes += chunk[0..<count]
        }
    }

    /// Sends `request` and reads one answer (framed by its `Content-Length`) within `seconds`; nil when the
    /// connection closed or nothing whole came in time.
    public func exchange(_ request: [UInt8], within seconds: Double = 30) -> HTTPAnswer? {
        guard send(request) else { return nil }
        return readAnswer(within: seconds)
    }

    /// Reads one answer framed by its `Content-Length`; nil when the connection closed first or time ran out.
    public func readAnswer(within seconds: Double) -> HTTPAnswer? {
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = headEnd() {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if buffer.count >= end + 4 + length {
                    let whole = Array(buffer[..<(end + 4 + length)])
                    buffer.removeFirst(end + 4 + length)
                    return HTTPAnswer.parse(String(decoding: whole, as: UTF8.self))
                }
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, isReadable(within: left) else { return nil }
            let count = recv(socket, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
        }
    }

    /// A request's bytes: `method path` with `key` as a bearer token, keep-alive unless `close`.
    public static func request(
        _ method: String, _ path: String, key: String?, contentType: String = "application/x-ndjson",
        body: String = "", close: Bool = false
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if close { head += "Connection: close\r\n" }
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        return Array((head + body).utf8)
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
