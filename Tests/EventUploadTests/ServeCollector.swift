import EventStore
import Foundation
import MeasurementEvents
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The real collector: the built `alstats serve` on a loopback port the system picks, with the write key `wk`
/// and the read key `rk`, storing into its own database. Stopped with SIGTERM when released.
final class ServeCollector: Sendable {
    /// Whether the tests that run it run (TestSupport's rule: a missing binary fails under CI).
    static var built: Bool { BuiltAlstats.shouldRun }

    let port: UInt16
    let databasePath: String
    private let process: Mutex<Process>

    /// Starts the server and waits for its "listening on" line.
    init(databasePath: String, writeKey: String = "wk") throws {
        self.databasePath = databasePath
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltAlstats.require())
        process.arguments = ["serve", "--database", databasePath, "--host", "127.0.0.1", "--port", "0"]
        var environment = ProcessInfo.processInfo.environment
        environment["ALSTATS_WRITE_KEYS"] = writeKey
        environment["ALSTATS_READ_KEYS"] = "rk"
        process.environment = environment
        let log = databasePath + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var port: UInt16?
        for _ in 0..<600 where port == nil {  // the log line comes within a minute on a loaded machine
            usleep(100_000)
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://[^ ]+:\d+"#, options: .regularExpression) {
                port = UInt16(text[range].split(separator: ":").last ?? "")
            }
            guard process.isRunning else { break }
        }
        guard let port else {
            process.terminate()
            throw POSIXError(.ECONNREFUSED)
        }
        self.port = port
        self.process = Mutex(process)
    }

    deinit {
        stop()
    }

    /// The collector's base URL.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Stops the server (SIGTERM: it finishes the requests in flight) and waits for it.
    func stop() {
        process.withLock { process in
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// The ids of the stored events, read from the collector's database while it runs.
    func storedIDs() throws -> [String] {
        var ids: [String] = []
        try reader().forEachEvent { ids.append($0.id.description) }
        return ids
    }

    /// The stored events.
    func count() throws -> Int { try reader().count() }

    /// The collector's database, opened without the integrity check (it is polled while the server writes).
    private func reader() throws -> EventStore {
        try EventStore(path: databasePath, options: EventStore.Options(create: false, integrityCheckLimit: 0))
    }

    /// Events the collector acknowledged as duplicates, from its `/metrics`.
    var duplicates: Int {
        guard let fd = Wire.connect(port: port) else { return -1 }
        defer { Wire.hangUp(fd) }
        let request =
            "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer rk\r\nConnection: close\r\n\r\n"
        Wire.write(fd, Data(request.utf8))
        let text = String(decoding: Wire.readAll(fd), as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("alstats_events_duplicate_total") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }
}
