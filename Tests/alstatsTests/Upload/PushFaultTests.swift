#if Server

import EventStoreSQLite
import EventUploadHTTPClient
import Foundation
import MeasurementEvents
import Synchronization
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

#if canImport(Glibc)
import Glibc
#endif

/// A fault costs one retry, not a timeout: `alstats push` (the built binary; build it first with `swift build`) and
/// the pusher on ``AsyncHTTPClientUploadTransport`` send through the fault proxy, which keeps connections open
/// across requests as a server does, into the real `alstats serve`. A connection dropped before the request reached
/// the collector, an answer lost after the collector committed, and a connection reset halfway through a body each
/// cost one more request carrying the whole body, and the collector ends with every event once.
@Suite(.serialized, .enabled(if: ServeCollector.built, "build alstats first with swift build"))
struct PushFaultTests {
    /// The faults a network deals: each must cost exactly one more request.
    static let faults: Set<FaultProxy.Fault> = [.dropBeforeSending, .dropAfterSending, .resetMidBody]

    /// 5,000 events: 10 batches of 500 (``UploadPolicy/maximumBatchEvents``).
    static let events = numberedEvents(5_000)
    static let batches = 10

    @Test func aPushThroughDroppedConnectionsLostAnswersAndResetsRetriesEachOnceAndStoresEveryEventOnce() throws {
        let folder = TemporaryFolder()
        let database = try PushCLITests.database(PushFaultTests.events, in: folder)
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        // The first batches pass and leave their connections in the client's pool (a push has up to 4 requests in
        // flight); the next six batches each meet one fault, mostly on pooled connections; every retry passes.
        let script: [FaultProxy.Fault] = [
            .pass, .pass, .pass, .pass, .dropBeforeSending, .dropAfterSending, .resetMidBody, .dropBeforeSending,
            .resetMidBody, .dropAfterSending,
        ]
        let proxy = try FaultProxy(
            upstream: collector.port, script: script, connections: .keptOpen, resentBodiesPass: true)
        defer { proxy.stop() }

        // A hang guard, not a benchmark: each retry waits at most a few seconds of backoff (1 s doubling), while
        // a fault that costs a request timeout costs 15 s.
        let push = try PushFaultTests.run(
            ["push", "--to", proxy.url.absoluteString, "--write-key", "wk", "--database", database],
            in: folder, within: .seconds(20))
        #expect(push.status == 0, "\(push.errors)")

        let faults = script.filter { PushFaultTests.faults.contains($0) }.count
        #expect(proxy.applied.filter { $0 != .pass } == script.filter { $0 != .pass }, "every fault was applied")
        PushFaultTests.expectOneRetryPerFault(proxy.seen, batches: PushFaultTests.batches, faults: faults)
        try PushFaultTests.expectEveryEventOnce(in: collector)
        // Each lost answer's batch was sent once more, whole: the collector saw its 500 events twice.
        #expect(collector.duplicates == 500 * script.filter { $0 == .dropAfterSending }.count)
    }

    @Test func thePusherOnAsyncHTTPClientRetriesEachFaultOnceWithTheWholeBody() async throws {
        let folder = TemporaryFolder()
        let database = try PushCLITests.database(PushFaultTests.events, in: folder)
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        // One batch at a time, so every fault lands on the connection of the answered request before it: batch 2
        // meets a drop, batch 3 a lost answer, batch 4 a reset; their retries and the other batches pass.
        let script: [FaultProxy.Fault] = [.pass, .dropBeforeSending, .dropAfterSending, .resetMidBody]
        let proxy = try FaultProxy(
            upstream: collector.port, script: script, connections: .keptOpen, resentBodiesPass: true)
        defer { proxy.stop() }
        let transport = RecordingTransport(AsyncHTTPClientUploadTransport())
        let policy = UploadPolicy(
            initialBackoff: .milliseconds(10), maximumBackoff: .milliseconds(50), giveUpAfter: .seconds(60))
        let pusher = try EventPusher(
            source: try StoreEventLines(path: database), collector: proxy.url, writeKey: "wk", policy: policy,
            batchesInFlight: 1,
            transport: transport)
        try await pusher.push()

        let tries = transport.tries
        // A fault is one failed try, and the next try sends the same body again and is answered.
        let answered = [true, false, true, false, true, false, true] + Array(repeating: true, count: 6)
        #expect(tries.map(\.answered) == answered, "\(tries.map(\.outcome))")
        for (index, attempt) in tries.enumerated() where !attempt.answered && index + 1 < tries.count {
            #expect(tries[index + 1].body == attempt.body, "try \(index + 2) resends the body of try \(index + 1)")
        }
        #expect(tries.allSatisfy { !$0.timedOut }, "no fault waited out the request timeout")
        #expect(tries.filter(\.answered).allSatisfy { $0.status == 200 })
        #expect(proxy.seen.filter { $0.fault != .pass }.allSatisfy { $0.onReusedConnection })
        PushFaultTests.expectOneRetryPerFault(proxy.seen, batches: PushFaultTests.batches, faults: script.count - 1)
        try PushFaultTests.expectEveryEventOnce(in: collector)
        #expect(pusher.status.pending == 0)
    }

    @Test func aPushWaitingForAnUnreachableCollectorUsesAlmostNoCPU() throws {
        let folder = TemporaryFolder()
        let database = try PushCLITests.database(PushFaultTests.events, in: folder)
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        // Four batches pass and pool their connections, then for 5 s every request is dropped unanswered.
        let script: [FaultProxy.Fault] = [.pass, .pass, .pass, .pass, .unreachable(for: .seconds(5))]
        let proxy = try FaultProxy(upstream: collector.port, script: script, connections: .keptOpen)
        defer { proxy.stop() }

        // bash's `times` prints the CPU time of the shell, then of its waited-for children: the push alone.
        let times = folder.file("times")
        let command = #""$ALSTATS" "$@"; status=$?; times > "$TIMES"; exit $status"#
        let arguments = ["push", "--to", proxy.url.absoluteString, "--write-key", "wk", "--database", database]
        let push = try PushFaultTests.run(
            ["-c", command, "bash"] + arguments, executable: "/bin/bash",
            environment: ["ALSTATS": try BuiltAlstats.require(), "TIMES": times], in: folder, within: .seconds(60))
        #expect(push.status == 0, "\(push.errors)")
        #expect(proxy.applied.contains(.unreachable(for: .seconds(5))), "the collector was unreachable")
        #expect(proxy.applied.count > script.count, "the push retried through the outage")
        try PushFaultTests.expectEveryEventOnce(in: collector)

        let report = String(decoding: FileManager.default.contents(atPath: times) ?? Data(), as: UTF8.self)
        let cpu = try #require(PushFaultTests.childrenCPUSeconds(report), "bash's times: \(report)")
        // Waiting costs no CPU; the push's own work (reading, encoding, gzip of 5,000 events) a fraction of this.
        #expect(cpu < 1.0, "the push used \(cpu) s of CPU (user + system) waiting about 5 s")
    }

    // MARK: - Checks

    /// Every request had its whole body but those the proxy cut itself, and there was one request per batch and
    /// one more per fault: no fault cost a second retry, and no request was sent again without its body.
    static func expectOneRetryPerFault(
        _ seen: [FaultProxy.SeenRequest], batches: Int, faults: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let short = seen.filter(\.isShort)
        #expect(
            short.allSatisfy { $0.fault == .resetMidBody }, "bodies shorter than their Content-Length: \(short)",
            sourceLocation: sourceLocation)
        #expect(
            seen.filter { $0.fault == .resetMidBody }.allSatisfy { $0.isShort }, "the proxy cut the bodies it reset",
            sourceLocation: sourceLocation)
        #expect(seen.count == batches + faults, "\(seen.map(\.fault))", sourceLocation: sourceLocation)
        #expect(
            seen.filter(\.resendsBody).count == faults, "each fault's body was sent once more, whole",
            sourceLocation: sourceLocation)
        #expect(
            seen.contains { PushFaultTests.faults.contains($0.fault) && $0.onReusedConnection },
            "a fault hit a connection the client had reused", sourceLocation: sourceLocation)
    }

    /// The collector holds ``events``, each once.
    static func expectEveryEventOnce(in collector: ServeCollector, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        let ids = try collector.storedIDs()
        #expect(ids.count == events.count, sourceLocation: sourceLocation)
        #expect(Set(ids) == Set(events.map(\.id.description)), sourceLocation: sourceLocation)
    }

    /// The children's user and system seconds from bash's `times` (its second line, `0m0.120s 0m0.030s`).
    static func childrenCPUSeconds(_ report: String) -> Double? {
        let lines = report.split(separator: "\n")
        guard lines.count >= 2 else { return nil }
        let seconds = lines[1].split(separator: " ").map { field -> Double? in
            let parts = field.dropLast().split(separator: "m")  // "0m0.120s"
            guard parts.count == 2, let minutes = Double(parts[0]), let seconds = Double(parts[1]) else { return nil }
            return minutes * 60 + seconds
        }
        guard seconds.count == 2, let user = seconds[0], let system = seconds[1] else { return nil }
        return user + system
    }

    // MARK: - Running a process

    /// How a process ended: its exit status (`nil` when it was killed for running too long) and its stderr.
    struct Ended {
        var status: Int32?
        var errors: String
    }

    /// Runs `executable` (the built `alstats` by default) with `arguments` and `environment` on top of this
    /// process's (without `ALSTATS_DATABASE` and `ALSTATS_WRITE_KEY`), and kills it (SIGKILL) when it has not
    /// exited within `limit`.
    static func run(
        _ arguments: [String], executable: String? = nil, environment: [String: String] = [:],
        in folder: TemporaryFolder, within limit: Duration
    ) throws -> Ended {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable ?? BuiltAlstats.require())
        process.arguments = arguments
        var variables = ProcessInfo.processInfo.environment
        variables["ALSTATS_DATABASE"] = nil
        variables["ALSTATS_WRITE_KEY"] = nil
        process.environment = variables.merging(environment) { $1 }
        _ = FileManager.default.createFile(atPath: folder.file("err"), contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: folder.file("err"))
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let seconds = Double(limit.components.seconds)
        let status: Int32?
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            Glibc.kill(process.processIdentifier, SIGKILL)
            exited.wait()
            status = nil
            let command = ([process.executableURL?.lastPathComponent ?? ""] + arguments).joined(separator: " ")
            Issue.record("\(command) did not finish within \(seconds) s: killed")
        } else {
            status = process.terminationStatus
        }
        let errors = String(decoding: FileManager.default.contents(atPath: folder.file("err")) ?? Data(), as: UTF8.self)
        return Ended(status: status, errors: errors)
    }
}

/// A transport that records every try of the transport it wraps: the body, and the answer's status or the error.
final class RecordingTransport: UploadTransport {
    struct Try: Sendable {
        var body: Data
        /// The answer's status, or the error.
        var outcome: Result<Int, Failure>

        /// Whether an answer arrived.
        var answered: Bool { (try? outcome.get()) != nil }
        /// The answer's status.
        var status: Int? { try? outcome.get() }
        /// Whether the try ended with the transport's request timeout.
        var timedOut: Bool {
            guard case .failure(let failure) = outcome else { return false }
            return failure.timedOut
        }
    }

    /// A try's error, as text.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
        var timedOut: Bool
    }

    private let wrapped: any UploadTransport
    private let recorded = StateLock<[Try]>([])

    init(_ wrapped: any UploadTransport) {
        self.wrapped = wrapped
    }

    /// Every try, in the order they ended.
    var tries: [Try] { recorded.withLock { $0 } }

    func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws -> UploadResponse {
        do {
            let response = try await wrapped.send(body, to: endpoint, writeKey: writeKey, timeout: timeout)
            recorded.withLock { $0.append(Try(body: body, outcome: .success(response.status))) }
            return response
        } catch {
            var timedOut = (error as? URLError)?.code == .timedOut
            if case .timedOut = error as? AsyncHTTPClientUploadTransportError { timedOut = true }
            let failure = Failure(description: String(describing: error), timedOut: timedOut)
            recorded.withLock { $0.append(Try(body: body, outcome: .failure(failure))) }
            throw error
        }
    }
}

#endif
