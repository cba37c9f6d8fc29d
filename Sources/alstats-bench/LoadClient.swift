import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One keep-alive HTTP/1.1 connection on a plain blocking socket, for the serve and links benchmarks' load
/// threads, one each (the bench links no HTTP library: it must build without the server packages).
final class KeepAliveConnection {
    private let port: Int
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    init(port: Int) { self.port = port }

    deinit { if socket >= 0 { close(socket) } }

    /// Sends one request and reads its answer; returns the status (0 when the connection failed twice).
    func send(_ request: [UInt8]) -> Int {
        for _ in 0..<2 {
            if socket < 0, !connectSocket() { continue }
            if writeAll(request), let status = readResponse() { return status }
            close(socket)
            socket = -1
            buffer.removeAll()
        }
        return 0
    }

    /// The bytes of a POST of `body` to `path` with `key`.
    static func request(path: String, key: String, contentType: String, body: [UInt8]) -> [UInt8] {
        let head =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n"
            + "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }

    private func connectSocket() -> Bool {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
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
        if connected != 0 {
            close(socket)
            socket = -1
            return false
        }
        return true
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
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

    /// Reads one response (Content-Length framed); nil when the connection closed first. Parses the bytes in
    /// place (no strings, no copies of the kept bytes): the client shares the cores with the server it loads.
    private func readResponse() -> Int? {
        while true {
            if let end = headerEnd() {
                let status = Self.status(buffer[..<end])
                let total = end + 4 + Self.contentLength(buffer[..<end])
                while buffer.count < total { guard fill() else { return nil } }
                if total == buffer.count { buffer.removeAll(keepingCapacity: true) } else { buffer.removeFirst(total) }
                return status
            }
            guard fill() else { return nil }
        }
    }

    /// The status code of a head (`HTTP/1.1 200 OK`), 0 when unreadable.
    private static func status(_ head: ArraySlice<UInt8>) -> Int {
        guard let space = head.firstIndex(of: UInt8(ascii: " ")) else { return 0 }
        return number(head[(space + 1)...])
    }

    /// The `Content-Length` of a head (name compared case-insensitively), 0 when absent.
    private static func contentLength(_ head: ArraySlice<UInt8>) -> Int {
        let name = Array("\r\ncontent-length:".utf8)
        var index = head.startIndex
        while index + name.count <= head.endIndex {
            var matches = true
            for offset in 0..<name.count where lowercased(head[index + offset]) != name[offset] {
                matches = false
                break
            }
            if matches {
                var start = index + name.count
                while start < head.endIndex, head[start] == UInt8(ascii: " ") { start += 1 }
                return number(head[start...])
            }
            index += 1
        }
        return 0
    }

    /// An ASCII capital letter as its small letter; any other byte as it is.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// The decimal number at the start of `bytes`.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int {
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private func headerEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func fill() -> Bool {
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}

/// Runs `body(thread)` on `count` threads at once and waits for them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}
