#if Server

import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventServer
@testable import EventStoreInterface

@Suite struct GroupCommitWriterTests {
    /// Submits `batches` in order before the writer runs, so that one transaction holds them all (as many as
    /// the writer's group limit lets), then runs it.
    static func commitTogether(
        _ batches: [[MeasurementEvent]], writer: GroupCommitWriter<some EventBackend>
    ) async throws -> [Result<Int, EventSubmitError>] {
        var tasks: [Task<Result<Int, EventSubmitError>, Never>] = []
        var total = 0
        for batch in batches {
            tasks.append(
                Task { () -> Result<Int, EventSubmitError> in
                    do throws(EventSubmitError) {
                        return .success(try await writer.submit(batch, losses: ["too_large": 1]))
                    } catch {
                        return .failure(error)
                    }
                })
            total += batch.count
            let queued = total
            try await waitUntil { writer.queuedEventCount == queued }
        }
        return try await withRunningWriter(writer) {
            var results: [Result<Int, EventSubmitError>] = []
            for task in tasks { results.append(await task.value) }
            return results
        }
    }

    /// Runs `writer` while `body` submits to it, then closes it and waits for its thread to end (a failing
    /// `body` cancels it, which closes it too).
    static func withRunningWriter<Result: Sendable>(
        _ writer: GroupCommitWriter<some EventBackend>, _ body: () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await writer.run() }
            let result = try await body()
            writer.close()
            try await group.waitForAll()
            return result
        }
    }

    @Test func requestsSharingATransactionEachGetTheirOwnCount() async throws {
        let fixture = ServerFixture()
        let writer = GroupCommitWriter(store: try SQLiteEventStore(path: fixture.path))
        let shared = sampleLines(5, prefix: "shared")
        let results = try await Self.commitTogether(
            [shared, shared + sampleLines(3, prefix: "b"), sampleLines(2, prefix: "c")], writer: writer)
        #expect(results.map { try? $0.get() } == [5, 3, 2])
        #expect(try fixture.storedEvents().count == 10)
        #expect(try fixture.completeness()["rejected"]?["too_large"] == 3)
        #expect(writer.isHealthy == false)  // closed
    }

    /// A group smaller than the minimum waits for a request still being encoded (up to the gather delay): the
    /// first request stays queued, uncommitted, until the second one is queued, then both commit at once.
    @Test func aSmallGroupWaitsForARequestStillBeingEncoded() async throws {
        let fixture = ServerFixture()
        let held = Gate()
        let writer = GroupCommitWriter(
            store: try SQLiteEventStore(path: fixture.path), maximumQueuedEvents: 100_000, minimumGroupEvents: 10,
            gatherDelay: .seconds(60), metrics: nil, beforeEncoding: { await held.pass() })
        try await Self.withRunningWriter(writer) { () async throws in
            let second = Task { try await writer.submit(sampleLines(3, prefix: "second"), losses: [:]) }
            try await waitUntil { held.waiting == 1 }  // admitted, arriving
            held.open()
            let first = Task { try await writer.submit(sampleLines(5, prefix: "first"), losses: [:]) }
            try await waitUntil { writer.queuedEventCount == 5 }  // queued, the second still arriving
            // Room for a commit that should not come (the gather delay is a minute): it would show in 200 ms.
            try await Task.sleep(for: .milliseconds(200))
            #expect(writer.commits == 0)
            #expect(try fixture.storedEvents().isEmpty)
            held.release()
            #expect(try await first.value == 5)
            #expect(try await second.value == 3)
            #expect(writer.commits == 1)
            // Both committed once the second was queued, not when the 60 s ran out.
            #expect(writer.groupsGatheredUntilTheDelay == 0)
        }
        #expect(try fixture.storedEvents().count == 8)
    }

    /// A request with none being encoded behind it is committed at once, whatever the gather delay: a lone
    /// client (an uploading device sends its next batch only after the receipt) never waits for it.
    @Test func aLoneRequestIsCommittedAtOnce() async throws {
        let fixture = ServerFixture()
        let writer = GroupCommitWriter(
            store: try SQLiteEventStore(path: fixture.path), minimumGroupEvents: 1_000, gatherDelay: .seconds(60))
        try await Self.withRunningWriter(writer) { () async throws in
            #expect(try await writer.submit(sampleLines(3), losses: [:]) == 3)
            #expect(try await writer.submit(sampleLines(4), losses: [:]) == 4)
            #expect(writer.commits == 2)
            #expect(writer.groupsGatheredUntilTheDelay == 0)  // neither waited
        }
        #expect(try fixture.storedEvents().count == 7)
    }

    /// A request gets the store's encoder of its lines while the queue has room, and none once it is full (it would
    /// be refused: its lines are not encoded) or the writer is closed; the encoder's lines are stored like any.
    @Test func theLinesEncoderIsHandedOutOnlyWhileTheQueueHasRoom() async throws {
        let fixture = ServerFixture()
        let writer = GroupCommitWriter(store: try SQLiteEventStore(path: fixture.path), maximumQueuedEvents: 5)
        let codec = NDJSONCodec()
        func scanned(_ lines: [String]) -> ScannedLines {
            let encoder = writer.makeFlatLineEncoder()
            #expect(encoder != nil)
            var scanned = ScannedLines(codec: codec, encoder: encoder)
            var flat = FlatLine()
            for (position, line) in lines.enumerated() {
                Array(line.utf8).withUnsafeBufferPointer { bytes in
                    #expect(codec.scan(bytes, into: &flat))
                    scanned.append(bytes, scanned: flat, position: Int32(position))
                }
            }
            #expect(scanned.keptCount == 0 && scanned.count == lines.count)
            return scanned
        }
        let lines = (0..<5).map { #"{"name":"al_nav_in","ts":1763683200000,"fields":{"ref":"r\#($0)"}}"# }
        let full = scanned(lines)
        let queued = Task { try await writer.submit([], positions: [], lines: full, losses: [:]) }
        try await waitUntil { writer.queuedEventCount == 5 }
        #expect(writer.makeFlatLineEncoder() == nil)  // full: a request would be refused
        try await Self.withRunningWriter(writer) { () async throws in
            #expect(try await queued.value == 5)
            #expect(writer.makeFlatLineEncoder() != nil)
        }
        #expect(writer.makeFlatLineEncoder() == nil)  // closed
        #expect(try fixture.storedEvents().count == 5)
    }

    @Test func requestsBeyondTheGroupLimitCommitInLaterTransactionsWithTheirOwnCounts() async throws {
        let fixture = ServerFixture()
        let writer = GroupCommitWriter(
            store: try SQLiteEventStore(path: fixture.path), maximumQueuedEvents: 100, maximumGroupEvents: 6)
        let shared = sampleLines(5, prefix: "shared")
        let results = try await Self.commitTogether(
            [shared, shared + sampleLines(3, prefix: "b"), sampleLines(2, prefix: "c"), shared], writer: writer)
        #expect(results.map { try? $0.get() } == [5, 3, 2, 0])
        #expect(try fixture.storedEvents().count == 10)
        #expect(try fixture.completeness()["rejected"]?["too_large"] == 4)
    }

    @Test func aFailedCommitFailsEveryRequestInItAndStoresNothing() async throws {
        let fixture = ServerFixture()
        _ = try SQLiteEventStore(path: fixture.path)  // created and migrated
        let pages = (try FileManager.default.attributesOfItem(atPath: fixture.path)[.size] as? Int ?? 0) / 4_096
        let store = try SQLiteEventStore(path: fixture.path, options: .init(maximumPageCount: pages + 1))
        let writer = GroupCommitWriter(store: store)
        // Values that do not compress (the store packs fields with zstd by default): a megabyte over the one page.
        let big = { (prefix: String) in
            (0..<500).map {
                MeasurementEvent(
                    id: EventID("\(prefix)-\($0)"), name: "x",
                    fields: ["v": (0..<56).map { _ in UUID().uuidString }.joined()], timestamp: 1)
            }
        }
        let results = try await Self.commitTogether([big("a"), big("b")], writer: writer)
        for result in results {
            guard case .failure(.storeFailed(let message)) = result else {
                Issue.record("expected a store failure, got \(result)")
                continue
            }
            #expect(message.contains(fixture.path))
            #expect(EventSubmitError.storeFailed(message).answer.status == .internalServerError)
        }
        #expect(try fixture.storedEvents().isEmpty)
        #expect(try fixture.completeness()["rejected"]?["too_large"] == nil)
    }
}

/// Holds the requests that reach it while closed (``pass()``) until ``release()``; open, lets them through.
final class Gate: @unchecked Sendable {
    // @unchecked Sendable: the state is only touched under `lock`.
    private let lock = NSLock()
    private var isOpen = false
    private var held: [CheckedContinuation<Void, Never>] = []
    private var count = 0

    /// How many requests are held.
    var waiting: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if isOpen {
                lock.unlock()
                continuation.resume()
                return
            }
            held.append(continuation)
            count += 1
            lock.unlock()
        }
    }

    /// Lets later requests through; the held ones stay held.
    func open() {
        lock.lock()
        isOpen = true
        lock.unlock()
    }

    /// Lets the held requests go on.
    func release() {
        lock.lock()
        let released = held
        held = []
        count = 0
        lock.unlock()
        for continuation in released { continuation.resume() }
    }
}

#endif
