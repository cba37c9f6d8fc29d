import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A running `alstats serve` (the built binary), on a free loopback port, with its own database folder.
final class ServeProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is set once in init; `errors` is appended under `lock` only.

    let process = Process()
    let port: Int
    private let pipe = Pipe()
    private let lock = NSLock()
    private var errors = ""

    /// Starts `alstats serve --port 0 arguments` with the write key `w1` and read key `r1`; waits for its
    /// "listening on" line.
    init(database: String, arguments: [String] = [], environment extra: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: try BuiltAlstats.require())
        process.arguments = ["serve", "--database", database, "--port", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ALSTATS_WRITE_KEYS"] = "w1"
        environment["ALSTATS_READ_KEYS"] = "r1"
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var collected = ""
        var port: Int?
        while port == nil {
            let data = pipe.fileHandleForReading.availableData
            guard !data.isEmpty else { throw ServeProcessError("alstats serve exited: \(collected)") }
            collected += String(decoding: data, as: UTF8.self)
            if let range = collected.range(of: #"listening on http://[^ ]+:(\d+)"#, options: .regularExpression) {
                port = Int(collected[range].split(separator: ":").last ?? "")
            }
        }
        self.port = port ?? 0
        errors = collected
        // Keep draining stderr so that the server never blocks on a full pipe.
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock { self.errors += String(decoding: data, as: UTF8.self) }
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// What the server wrote on stderr so far.
    var stderr: String { lock.withLock { errors } }

    /// Sends `signal`, waits for the exit status, and reads the rest of stderr.
    func stop(with signal: Int32) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        let rest = pipe.fileHandleForReading.readDataToEndOfFile()
        lock.withLock { errors += String(decoding: rest, as: UTF8.self) }
        return process.terminationStatus
    }

    /// The server's resident memory in KiB (VmRSS).
    var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// One request on a new connection; nil when the connection failed (the server is gone).
    func request(
        _ method: String, _ path: String, key: String? = "w1", contentType: String = "application/x-ndjson",
        body: String = ""
    ) -> HTTPAnswer? {
        HTTPAnswer.fetch(port: port, method, path, key: key, contentType: contentType, body: Array(body.utf8))
    }
}

struct ServeProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A response read off a plain socket: HTTP/1.1, one request per connection.
struct HTTPAnswer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: String

    static func fetch(
        port: Int, _ method: String, _ path: String, key: String?, contentType: String, body: [UInt8]
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

    static func parse(_ text: String) -> HTTPAnswer? {
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
