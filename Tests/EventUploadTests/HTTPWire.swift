import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/1.1 request as read from a socket (Content-Length bodies only, which is what URLSession sends).
struct WireRequest: Sendable {
    var method: String
    var path: String
    /// Header names in lower case.
    var headers: [String: String]
    var body: Data

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

    /// Accepts connections on `listener` until it is closed, each on a thread of its own: reads one request,
    /// writes what `answer` returns (nothing for `nil`), and hangs up.
    static func serve(_ listener: Int32, answer: @escaping @Sendable (WireRequest) -> Data?) {
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread {
                    defer { hangUp(client) }
                    guard let request = readRequest(client), let response = answer(request) else { return }
                    write(client, response)
                }
            }
        }
    }

    /// Stops accepting connections on `listener`.
    static func stopListening(_ listener: Int32) {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Reads one request; `nil` when the peer closed first or sent something else.
    static func readRequest(_ fd: Int32) -> WireRequest? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
            headEnd = received.range(of: Data("\r\n\r\n".utf8))
            if received.count > 1 << 20, headEnd == nil { return nil }
        }
        guard let headEnd else { return nil }
        let lines = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Data(received[headEnd.upperBound...])
        while body.count < length {
            let count = read(fd, &buffer, min(buffer.count, length - body.count))
            guard count > 0 else { return nil }
            body.append(contentsOf: buffer[0..<count])
        }
        return WireRequest(method: String(parts[0]), path: String(parts[1]), headers: headers, body: body)
    }

    /// Reads until the peer closes.
    static func readAll(_ fd: Int32) -> Data {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return received }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// A whole response with `Connection: close`.
    static func response(status: Int, headers: [String: String] = [:], body: Data = Data()) -> Data {
        var text = "HTTP/1.1 \(status) Status\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Data(text.utf8) + body
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
