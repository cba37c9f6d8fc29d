import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension ServeProcess {
    /// One request on a new connection, with `headers` besides the key's and the content type; nil when the
    /// connection failed (the server is gone).
    public func request(
        _ method: String, _ path: String, key: String? = "w1", contentType: String = "application/x-ndjson",
        body: String = "", headers: [(name: String, value: String)] = []
    ) -> HTTPAnswer? {
        HTTPAnswer.fetch(
            port: port, method, path, key: key, contentType: contentType, body: Array(body.utf8), headers: headers)
    }
}

/// A response read off a plain socket: HTTP/1.1, one request per connection.
public struct HTTPAnswer: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, by lowercased name.
    public var headers: [String: String]
    /// The body, as text.
    public var body: String

    /// Sends one request to `127.0.0.1:port` and reads the whole answer; nil when the connection failed.
    public static func fetch(
        port: Int, _ method: String, _ path: String, key: String?, contentType: String, body: [UInt8],
        headers: [(name: String, value: String)] = []
    ) -> HTTPAnswer? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes {
                send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return nil }
            sent += written
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return parse(String(decoding: received, as: UTF8.self))
    }

    /// The answer in `text` (a status line, headers, a blank line, the body); nil when it is not one.
    public static func parse(_ text: String) -> HTTPAnswer? {
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<split.lowerBound].split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return HTTPAnswer(status: status, headers: headers, body: String(text[split.upperBound...]))
    }
}
