import EventStore
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventUpload

#if canImport(Glibc)
    import Glibc
#endif

/// `alstats push` end to end: the built binary (build it first: `swift build`) against the test collector.
@Suite(.serialized)
struct PushCLITests {
    static var built: Bool { BuiltAlstats.shouldRun }

    /// Starts `alstats` with `arguments`; its output goes to files in `folder`.
    static func start(_ arguments: [String], in folder: TemporaryFolder) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltAlstats.require())
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["ALSTATS_DATABASE"] = nil
        environment["ALSTATS_WRITE_KEY"] = nil
        process.environment = environment
        _ = FileManager.default.createFile(atPath: folder.file("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: folder.file("err"), contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: folder.file("out"))
        process.standardError = FileHandle(forWritingAtPath: folder.file("err"))
        try process.run()
        return process
    }

    /// Runs `alstats` to its end; returns the exit status, stdout and stderr.
    static func run(_ arguments: [String], in folder: TemporaryFolder) throws -> (Int32, String, String) {
        let process = try start(arguments, in: folder)
        process.waitUntilExit()
        let output = String(decoding: FileManager.default.contents(atPath: folder.file("out")) ?? Data(), as: UTF8.self)
        let errors = String(decoding: FileManager.default.contents(atPath: folder.file("err")) ?? Data(), as: UTF8.self)
        return (process.terminationStatus, output, errors)
    }

    /// A database holding `events`.
    static func database(_ events: [MeasurementEvent], in folder: TemporaryFolder) throws -> String {
        let path = folder.file("local.sqlite")
        try EventStore(path: path).write(events)
        return path
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func aPushKilledMidUploadAndRunAgainDeliversEveryEventOnce() async throws {
        let folder = TemporaryFolder()
        let events = numberedEvents(3_000)
        let database = try PushCLITests.database(events, in: folder)
        let collector = try LoopbackCollector(databasePath: folder.file("collector.sqlite"), writeKey: "wk")
        defer { collector.stop() }
        let slow = Array(repeating: FaultProxy.Fault.delay(milliseconds: 250), count: 6)
        let proxy = try FaultProxy(upstream: collector.port, script: slow)
        defer { proxy.stop() }
        let arguments = ["push", "--to", proxy.url.absoluteString, "--write-key", "wk", "--database", database]
        let first = try PushCLITests.start(arguments, in: folder)
        // Wait (up to a minute, polling) until some but not all events are stored, then kill without warning.
        var stored = 0
        for _ in 0..<600 where stored < 1_000 {
            try await Task.sleep(for: .milliseconds(100))
            stored = try collector.store.count()
        }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(first.terminationReason == .uncaughtSignal)
        let partial = try collector.store.count()
        #expect(partial >= 1_000 && partial < 3_000)

        let (status, output, errors) = try PushCLITests.run(arguments, in: folder)
        #expect(status == 0, "\(errors)")
        #expect(try collector.store.count() == 3_000)
        // Resumed from the cursor: at most the batch in flight at the kill was sent again.
        #expect(collector.duplicates <= 500)
        // Every duplicate the collector saw came from the second run, which says so.
        #expect(output.contains("new, \(collector.duplicates) already stored)"), "\(output)")
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func aSecondPushSendsNothingAndRejectedLinesAreCounted() throws {
        let folder = TemporaryFolder()
        let events = numberedEvents(700) + numberedEvents(2, start: 700, padding: 40_000)
        let database = try PushCLITests.database(events, in: folder)
        let collector = try LoopbackCollector(databasePath: folder.file("collector.sqlite"), writeKey: "wk")
        defer { collector.stop() }
        let arguments = [
            "push", "--to", "http://127.0.0.1:\(collector.port)", "--write-key", "wk", "--database", database,
        ]
        let (status, output, _) = try PushCLITests.run(arguments, in: folder)
        #expect(status == 0)
        #expect(output.contains("700 events acknowledged"), "\(output)")
        #expect(output.contains("2 rejected (upload_rejected:too_large 2)"), "\(output)")
        #expect(try collector.store.count() == 700)
        let requests = collector.requests
        let (again, second, _) = try PushCLITests.run(arguments, in: folder)
        #expect(again == 0)
        #expect(second.contains("push: 0 events acknowledged"), "\(second)")
        #expect(second.contains("2 rejected over every push"), "\(second)")
        #expect(collector.requests == requests)
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func aRefusedKeyExits77AndKeepsTheCursor() throws {
        let folder = TemporaryFolder()
        let database = try PushCLITests.database(numberedEvents(10), in: folder)
        let collector = try LoopbackCollector(databasePath: folder.file("collector.sqlite"), writeKey: "wk")
        defer { collector.stop() }
        let url = "http://127.0.0.1:\(collector.port)"
        let (status, _, errors) = try PushCLITests.run(
            ["push", "--to", url, "--write-key", "wrong", "--database", database], in: folder)
        #expect(status == 77)
        #expect(errors.contains("refused the write key (401)"), "\(errors)")
        let (retry, _, _) = try PushCLITests.run(
            ["push", "--to", url, "--write-key", "wk", "--database", database], in: folder)
        #expect(retry == 0)
        #expect(try collector.store.count() == 10)
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func anUnreachableCollectorExits69AfterTheGiveUpTime() throws {
        let folder = TemporaryFolder()
        let database = try PushCLITests.database(numberedEvents(10), in: folder)
        let (listener, port) = try Wire.listen()
        Wire.stopListening(listener)  // a port nobody listens on
        let (status, _, errors) = try PushCLITests.run(
            [
                "push", "--to", "http://127.0.0.1:\(port)", "--write-key", "wk", "--database", database,
                "--give-up-after", "1s",
            ], in: folder)
        #expect(status == 69)
        #expect(errors.contains("stayed unreachable"), "\(errors)")
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func aMissingDatabaseOrKeyIsAUsageError() throws {
        let folder = TemporaryFolder()
        let (missing, _, _) = try PushCLITests.run(
            ["push", "--to", "http://127.0.0.1:9", "--write-key", "wk", "--database", folder.file("none.sqlite")],
            in: folder)
        #expect(missing == 66)
        let (noKey, _, errors) = try PushCLITests.run(["push", "--to", "http://127.0.0.1:9"], in: folder)
        #expect(noKey == 64)
        #expect(errors.contains("write key"))
        let (badURL, _, _) = try PushCLITests.run(["push", "--to", "ftp://x", "--write-key", "k"], in: folder)
        #expect(badURL == 64)
    }
}
