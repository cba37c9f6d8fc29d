#if Server

import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
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
        try SQLiteEventStore(path: path).write(events)
        return path
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func aPushKilledMidUploadAndRunAgainDeliversEveryEventOnce() throws {
        let folder = TemporaryFolder()
        let events = numberedEvents(10_000)
        let database = try PushCLITests.database(events, in: folder)
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        // Every request of the 20 batches waits half a second: the kill lands mid-upload however loaded the machine
        // is, with many batches still to go.
        let slow = Array(repeating: FaultProxy.Fault.delay(milliseconds: 500), count: 20)
        let proxy = try FaultProxy(upstream: collector.port, script: slow)
        defer { proxy.stop() }
        let arguments = [
            "push", "--to", proxy.url.absoluteString, "--write-key", "wk", "--database", database, "--in-flight", "2",
        ]
        let first = try PushCLITests.start(arguments, in: folder)
        try collector.kill(first, onceStored: 2_000)
        let partial = try collector.count()
        #expect(partial >= 2_000 && partial < 10_000)

        let (status, output, errors) = try PushCLITests.run(arguments, in: folder)
        #expect(status == 0, "\(errors)")
        #expect(try collector.count() == 10_000)
        // Resumed from the cursor: at most the batches unsettled at the kill (--in-flight 2, and one more) were
        // sent again.
        #expect(collector.duplicates <= 3 * 500)
        // The second run says how many of its events the collector already had; the collector saw at least those
        // as duplicates (a request of the killed run still in the proxy may land after the second run's own).
        let repeated = try #require(output.firstMatch(of: /new, (\d+) already stored\)/).map { Int($0.1)! })
        #expect(repeated <= collector.duplicates, "\(output)")
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func aSecondPushSendsNothingAndRejectedLinesAreCounted() throws {
        let folder = TemporaryFolder()
        let events = numberedEvents(700) + numberedEvents(2, start: 700, padding: 40_000)
        let database = try PushCLITests.database(events, in: folder)
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        let arguments = [
            "push", "--to", collector.url.absoluteString, "--write-key", "wk", "--database", database,
        ]
        let (status, output, _) = try PushCLITests.run(arguments, in: folder)
        #expect(status == 0)
        #expect(output.contains("700 events acknowledged"), "\(output)")
        #expect(output.contains("2 rejected (upload_rejected:"), "\(output)")
        #expect(try collector.count() == 700)
        let (again, second, _) = try PushCLITests.run(arguments, in: folder)
        #expect(again == 0)
        #expect(second.contains("push: 0 events acknowledged"), "\(second)")
        #expect(second.contains("2 rejected over every push"), "\(second)")
        #expect(collector.duplicates == 0, "nothing was sent again")
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func aRefusedKeyExits77AndKeepsTheCursor() throws {
        let folder = TemporaryFolder()
        let database = try PushCLITests.database(numberedEvents(10), in: folder)
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        let url = collector.url.absoluteString
        let (status, _, errors) = try PushCLITests.run(
            ["push", "--to", url, "--write-key", "wrong", "--database", database], in: folder)
        #expect(status == 77)
        #expect(errors.contains("refused the write key (401)"), "\(errors)")
        let (retry, _, _) = try PushCLITests.run(
            ["push", "--to", url, "--write-key", "wk", "--database", database], in: folder)
        #expect(retry == 0)
        #expect(try collector.count() == 10)
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
        // One line, starting as every error of the CLI, its parentheses balanced (NIO's own text of a refused
        // connection has one too many).
        #expect(errors.hasPrefix("alstats: ") && errors.contains("Connection refused"), "\(errors)")
        var depth = 0
        for character in errors where "()".contains(character) {
            depth += character == "(" ? 1 : -1
            #expect(depth >= 0, "\(errors)")
        }
        #expect(depth == 0, "\(errors)")
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

/// A host app (`upload-example`, built with `swift build`) killed mid-upload and started again on the same
/// outbox: the collector ends with every event once.
@Suite(.serialized)
struct AppRestartTests {
    /// `upload-example`, built beside `alstats`.
    static var binary: String {
        URL(fileURLWithPath: BuiltAlstats.path ?? "/").deletingLastPathComponent()
            .appendingPathComponent("upload-example").path
    }

    static var built: Bool { BuiltAlstats.shouldRun }

    @Test(.enabled(if: built, "build alstats and upload-example first with swift build"))
    func anAppKilledMidUploadAndRestartedDeliversEveryEventOnce() throws {
        let folder = TemporaryFolder()
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        // Every request of the 6 batches waits a second: the kill lands mid-upload however loaded the machine is.
        let slow = Array(repeating: FaultProxy.Fault.delay(milliseconds: 1_000), count: 6)
        let proxy = try FaultProxy(upstream: collector.port, script: slow)
        defer { proxy.stop() }
        let outbox = folder.file("outbox.sqlite")
        let arguments = ["--outbox", outbox, "--to", proxy.url.absoluteString, "--key", "wk"]
        let app = Process()
        app.executableURL = URL(fileURLWithPath: AppRestartTests.binary)
        app.arguments = arguments + ["--events", "3000"]
        app.standardOutput = FileHandle.nullDevice
        try app.run()
        try collector.kill(app, onceStored: 1_000)
        #expect(try collector.count() < 3_000)

        let restarted = Process()
        restarted.executableURL = URL(fileURLWithPath: AppRestartTests.binary)
        restarted.arguments = arguments  // posts nothing: uploads what the killed app left in the outbox
        restarted.standardOutput = FileHandle.nullDevice
        try restarted.run()
        restarted.waitUntilExit()
        #expect(restarted.terminationStatus == 0)
        let ids = try collector.storedIDs()
        #expect(ids.count == 3_000)
        #expect(Set(ids) == Set(numberedEvents(3_000).map(\.id.description)))
        #expect(collector.duplicates <= 500, "at most the batch in flight was sent again")
    }
}

extension ServeCollector {
    /// Waits (polling, up to a minute) until the collector holds at least `count` events, then kills `process`
    /// without warning (SIGKILL) and waits for it.
    /// Synchronous on purpose: an async test waiting to be resumed can starve for seconds while the whole suite
    /// runs on two cores, and the upload would be over before the kill.
    func kill(_ process: Process, onceStored count: Int) throws {
        var stored = 0
        for _ in 0..<600 where stored < count {
            usleep(100_000)
            stored = try self.count()
        }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
    }
}

#endif
