#if Server

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 request as read from a socket (Content-Length bodies only, which is what the uploader's transports
/// send).
struct WireRequest: Sendable {
    var method: String
    var path: String
    /// Header names in lower case.
    var headers: [String: String]
    /// The body bytes read: fewer than ``declaredLength`` when the sender fell quiet or the reader stopped early.
    var body: Data

    /// The body's length as its `Content-Length` declares it (0 without one).
    var declaredLength: Int { Int(headers["content-length"] ?? "0") ?? 0 }

    /// The request as bytes again, for a proxy to forward (with `Connection: close`).
    var bytes: Data {
        var text = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in headers where name != "connection" && name != "content-length" {
            text += "\(name): \(value)\r\n"
        }
        text += "content-length: \(body.count)\r\nconnection: close\r\n\r\n"
        return Data(text.utf8) + body
    }
}

/// Socket plumbing shared by the test collector and the fault proxy.
enum Wire {
    /// A listening socket on 127.0.0.1 and a port the system picks.
    static func listen() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Accepts connections on `listener` until it is closed, handing each to `connection` on a thread of its own
    /// (which closes it).
    static func serve(_ listener: Int32, connection: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread { connection(client) }
            }
        }
    }

    /// Stops accepting connections on `listener`.
    static func stopListening(_ listener: Int32) {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Reads the head of the next request on a connection, waiting for its first byte as long as the connection
    /// stays open and then at most `quiet` between bytes; its body is left unread (empty).
    /// - Returns: `nil` when the peer closed or fell quiet before a whole head, or sent something else.
    static func readHead(_ fd: Int32, quiet: Duration) -> WireRequest? {
        // Byte by byte, so that not one byte of the body is read with it: the body is the caller's to read.
        var head: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        while head.count < 4 || Array(head.suffix(4)) != end {
            let byte = read(fd, upTo: 1, waitingAtMost: head.isEmpty ? nil : quiet)
            guard !byte.isEmpty, head.count < 1 << 16 else { return nil }
            head += byte
        }
        let lines = String(decoding: head.dropLast(4), as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let (name, value) = header(line) else { continue }
            headers[name] = value
        }
        return WireRequest(method: String(parts[0]), path: String(parts[1]), headers: headers, body: Data())
    }

    /// Reads up to `count` bytes of a body, waiting at most `quiet` for each part: fewer when the peer closed or
    /// fell quiet first, so a sender that declares a body and never sends it costs `quiet`, not a hang.
    static func readBody(_ fd: Int32, count: Int, quiet: Duration) -> Data {
        var body = Data()
        while body.count < count {
            let bytes = read(fd, upTo: min(65_536, count - body.count), waitingAtMost: quiet)
            guard !bytes.isEmpty else { break }
            body.append(contentsOf: bytes)
        }
        return body
    }

    /// The bytes one `read` returns, at most `count`, after waiting at most `limit` for any (`nil`: as long as the
    /// connection stays open); empty when the peer closed, the socket was shut down, or the wait ran out.
    static func read(_ fd: Int32, upTo count: Int, waitingAtMost limit: Duration?) -> [UInt8] {
        let milliseconds = limit.map { Int32(($0 / .milliseconds(1)).rounded(.up)) } ?? -1
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var ready = poll(&poller, 1, milliseconds)
        while ready < 0, errno == EINTR { ready = poll(&poller, 1, milliseconds) }
        guard ready > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let received = Glibc.read(fd, &buffer, count)
        return received > 0 ? Array(buffer[0..<received]) : []
    }

    /// Reads until the peer closes.
    static func readAll(_ fd: Int32) -> Data {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            guard count > 0 else { return received }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// A whole response; with `Connection: close` unless `keepAlive`.
    static func response(status: Int, headers: [String: String] = [:], body: Data = Data(), keepAlive: Bool = false)
        -> Data
    {
        var text = "HTTP/1.1 \(status) Status\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\n" + (keepAlive ? "" : "Connection: close\r\n") + "\r\n"
        return Data(text.utf8) + body
    }

    /// `answer`, a whole response read until its server closed, framed again for a connection that stays open:
    /// its status line and headers without the connection's own, and its body with its `Content-Length`.
    /// - Returns: `nil` for anything but a response with a `Content-Length` body (what the collector sends).
    static func keptAlive(_ answer: Data) -> Data? {
        let answer = Data(answer)  // indices from 0
        guard let headEnd = answer.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let lines = String(decoding: answer[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var text = lines[0] + "\r\n"
        var length: Int?
        for line in lines.dropFirst() {
            guard let (name, value) = header(line) else { continue }
            switch name {
            case "content-length": length = Int(value)
            case "connection", "keep-alive", "transfer-encoding": break
            default: text += line + "\r\n"
            }
        }
        let body = answer[headEnd.upperBound...]
        guard let length, body.count >= length else { return nil }
        return Data((text + "Content-Length: \(length)\r\n\r\n").utf8) + body.prefix(length)
    }

    /// The lower-case name and the value of a header line.
    private static func header(_ line: String) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// Writes all of `data`; false when the peer went away.
    @discardableResult
    static func write(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Closes a connection for both directions.
    static func hangUp(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    /// Closes a connection with a reset (RST, `SO_LINGER` 0) instead of an orderly end: the peer's next read or
    /// write fails with `ECONNRESET`.
    static func reset(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close(fd)
    }

    /// A connection to 127.0.0.1:`port`.
    static func connect(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}

#endif
