import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One keep-alive HTTP/1.1 connection to a loopback port on a plain blocking socket: sends a request,
/// reads the answer's head and its `Content-Length` body (a `HEAD` answer has none). For the `links` suite's
/// load, one per client thread.
final class KeepAliveClient {
    private let socket: Int32
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    private var pending: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; `nil` when the connection fails.
    init?(port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
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
            close(socket)
            return nil
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.socket = socket
    }

    deinit { close(socket) }

    /// Sends `request` (a whole HTTP/1.1 request) and returns the answer's status, or `nil` when the
    /// connection failed.
    func exchange(_ request: [UInt8], head: Bool = false) -> Int? {
        var sent = 0
        while sent < request.count {
            let written = request[sent...].withUnsafeBytes {
                send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return nil }
            sent += written
        }
        guard let end = readUntilHeadEnd() else { return nil }
        let headText = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeFirst(end + 4)
        let lines = headText.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        let length =
            lines.dropFirst().first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        let body = head ? 0 : length
        while pending.count < body {
            guard receive() else { return nil }
        }
        pending.removeFirst(body)
        return status
    }

    private func readUntilHeadEnd() -> Int? {
        let marker: [UInt8] = [13, 10, 13, 10]
        var searched = 0
        while true {
            if pending.count >= 4 {
                for index in max(0, searched - 3)...(pending.count - 4)
                where pending[index] == 13 && pending[index..<(index + 4)].elementsEqual(marker) {
                    return index
                }
                searched = pending.count
            }
            guard receive() else { return nil }
        }
    }

    private func receive() -> Bool {
        let count = recv(socket, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        pending += buffer[0..<count]
        return true
    }
}
