import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A running `alstats serve` (the built binary) on a loopback port the system picks, with its own database and
/// keys, keeping what it writes on stderr; stopped with SIGTERM when released. The one way the test suites
/// start the server process.
///
/// ```swift
/// let server = try ServeProcess(database: database.path)      // write key w1, read key r1
/// // POST to http://127.0.0.1:\(server.port)/v1/events
/// #expect(server.stop(with: SIGTERM) == 0)
/// ```
public final class ServeProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` and `port` are set once in init; `errors` is only touched under `lock`.

    /// The server's process.
    public let process = Process()
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Its database.
    public let databasePath: String
    private let pipe = Pipe()
    private let lock = NSLock()
    private var errors = ""
    /// Signalled when the stderr reader met the end of the pipe (and again by each wait, so that every wait
    /// returns once it has been).
    private let drained = DispatchSemaphore(value: 0)

    /// Starts `alstats serve --database database --host 127.0.0.1 --port 0 arguments` with `writeKey` and
    /// `readKey` (and `environment` on top) and waits for its "listening on" line.
    /// - Throws: ``BuiltAlstats/Missing`` when the binary was not built, ``ServeProcessError`` when the server
    ///   exited before listening.
    public init(
        database: String, arguments: [String] = [], writeKey: String = "w1", readKey: String = "r1",
        environment extra: [String: String] = [:]
    ) throws {
        databasePath = database
        process.executableURL = URL(fileURLWithPath: try BuiltAlstats.require())
        process.arguments = ["serve", "--database", database, "--host", "127.0.0.1", "--port", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ALSTATS_WRITE_KEYS"] = writeKey
        environment["ALSTATS_READ_KEYS"] = readKey
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
        // Keep draining stderr so that the server never blocks on a full pipe: blocking reads on a thread of
        // its own until the end of the pipe. Not a readabilityHandler: tearing its dispatch source down races the
        // pipe's close on Linux (a crash in libdispatch's `_dispatch_event_loop_drain`, seen in CI during
        // FaultScenarioTests; swift-corelibs-foundation pull request 5507).
        let handle = pipe.fileHandleForReading
        let drained = drained
        Thread.detachNewThread { [weak self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                guard let self else { continue }
                self.lock.withLock { self.errors += String(decoding: data, as: UTF8.self) }
            }
            drained.signal()
        }
    }

    deinit {
        if process.isRunning { process.terminate() }
        stop()  // waits for the stderr reader too, so that it never outlives the pipe
    }

    /// The server's base URL.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// What the server wrote on stderr so far.
    public var stderr: String { lock.withLock { errors } }

    /// Sends `signal` (unless the server has exited), waits for the exit status and for the rest of stderr.
    @discardableResult
    public func stop(with signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        drained.wait()
        drained.signal()
        return process.terminationStatus
    }

    /// The server's resident memory in KiB (VmRSS).
    public var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

/// `alstats serve` did not start.
public struct ServeProcessError: Error, CustomStringConvertible {
    /// What it wrote before it exited.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
