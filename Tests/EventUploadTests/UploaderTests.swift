import Foundation
import MeasurementEvents
import Synchronization
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

@Suite struct UploaderTests {
    @Test func aReceiptForFewerLinesThanWereSentIsNoAnswerAndTheBatchGoesAgain() async throws {
        let transport = ScriptedTransport([.partial(lines: 120), .accept])
        let source = MemorySource(lines: numberedEvents(300).map { NDJSONCodec.line(for: $0) })
        let uploader = Uploader(
            endpoint: URL(string: "http://127.0.0.1:9")!, writeKey: "key-1",
            policy: UploadPolicy(initialBackoff: .milliseconds(1)), transport: transport, clock: ManualUploadClock(),
            random: FixedRandom(unit: 0.5))
        try await uploader.drain(source)
        #expect(transport.requests.map(\.lines.count) == [300, 300])
        #expect(transport.stored.count == 300)
        #expect(uploader.status.accepted == 180, "the second receipt's new events")
        #expect(uploader.status.duplicates == 120, "the lines the cut body had stored")
        #expect(source.finishedKeys == (1...300).map(Int64.init))
    }

    @Test func anAnswerThatComesBeforeTheOneOfAnOlderBatchWaitsForIt() async throws {
        let transport = SecondFirstTransport()
        let source = MemorySource(lines: numberedEvents(1_000).map { NDJSONCodec.line(for: $0) })
        let uploader = Uploader(
            endpoint: URL(string: "http://127.0.0.1:9")!, writeKey: "key-1", policy: UploadPolicy(),
            transport: transport, clock: ManualUploadClock(), random: FixedRandom(unit: 0.5))
        try await uploader.drain(source, batchesInFlight: 2)
        #expect(transport.answered == [2, 1], "the second batch was answered first")
        #expect(source.finishedKeys == (1...1_000).map(Int64.init), "yet the first batch finished first")
    }

    @Test(arguments: [1, 2, 4])
    func batchesInFlightAreAcknowledgedInTheOrderTheyWereRead(window: Int) async throws {
        let transport = ScriptedTransport([.accept])
        let source = MemorySource(lines: numberedEvents(2_250).map { NDJSONCodec.line(for: $0) })
        let uploader = Uploader(
            endpoint: URL(string: "http://127.0.0.1:9")!, writeKey: "key-1", policy: UploadPolicy(),
            transport: transport, clock: ManualUploadClock(), random: FixedRandom(unit: 0.5))
        try await uploader.drain(source, batchesInFlight: window)
        #expect(source.finishedKeys == (1...2_250).map(Int64.init), "each batch finished after the one before")
        #expect(transport.stored.count == 2_250)
        #expect(transport.stored.values.allSatisfy { $0 == 1 })
    }

    @Test func theNextBatchIsSentWhileTheOneBeforeIsAcknowledged() async throws {
        let transport = ScriptedTransport([.accept])
        let source = HeldSource(lines: numberedEvents(1_500).map { NDJSONCodec.line(for: $0) }, transport: transport)
        let uploader = Uploader(
            endpoint: URL(string: "http://127.0.0.1:9")!, writeKey: "key-1", policy: UploadPolicy(),
            transport: transport, clock: ManualUploadClock(), random: FixedRandom(unit: 0.5))
        try await uploader.drain(source)
        // The first acknowledgement waited for the second request: sent while it ran, not after it.
        #expect(source.secondRequestSentDuringTheFirstAcknowledgement == true)
        #expect(transport.requests.map(\.lines.count) == [500, 500, 500])
        #expect(source.finishedKeys == (1...1_500).map(Int64.init))
        #expect(transport.stored.values.allSatisfy { $0 == 1 })
        #expect(uploader.status.accepted == 1_500)
        #expect(uploader.status.pending == 0)
    }
}

/// An in-memory source whose first acknowledgement holds until the transport has seen a second request (for at
/// most a minute, so that an uploader which acknowledges before sending again fails the test instead of hanging).
private final class HeldSource: UploadSource, @unchecked Sendable {
    // @unchecked Sendable: every var is touched only holding `condition`.
    private let lines: [String]
    private let transport: ScriptedTransport
    private let condition = NSCondition()
    private var finished: [Int64] = []
    private var firstAcknowledgement: Bool?

    init(lines: [String], transport: ScriptedTransport) {
        self.lines = lines
        self.transport = transport
    }

    /// Whether the second request was sent while the first batch's acknowledgement waited (`nil`: no wait yet).
    var secondRequestSentDuringTheFirstAcknowledgement: Bool? { condition.withLock { firstAcknowledgement } }
    var finishedKeys: [Int64] { condition.withLock { finished } }

    func nextBatch(after previous: UploadBatch?, maximumEvents: Int, maximumBytes: Int) throws(UploadError)
        -> UploadBatch?
    {
        condition.withLock {
            let done = Set(finished)
            let start = previous?.keys.last ?? 0
            var batch = UploadBatch()
            var bytes = 0
            for key in (start + 1)..<(Int64(lines.count) + 1) where !done.contains(key) {
                guard batch.count < maximumEvents,
                    batch.append(lines[Int(key) - 1], key: key, bytes: &bytes, maximumBytes: maximumBytes)
                else { break }
            }
            return batch.count == 0 ? nil : batch
        }
    }

    func finish(_ batch: UploadBatch, rejected: [DropReason: Int], unseen: Bool) throws(UploadError) {
        condition.lock()
        defer { condition.unlock() }
        if firstAcknowledgement == nil {
            let deadline = Date(timeIntervalSinceNow: 60)
            while transport.requests.count < 2, Date() < deadline {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.01))
            }
            firstAcknowledgement = transport.requests.count >= 2
        }
        finished += batch.keys
    }

    func pendingCount() throws(UploadError) -> Int {
        condition.withLock { lines.count - finished.count }
    }

    func endUploading() {}
}

/// An in-memory source: batches of the lines not finished after `previous`; finishing records the keys in order.
private final class MemorySource: UploadSource, @unchecked Sendable {
    // @unchecked Sendable: every var is touched only holding `lock`.
    private let lines: [String]
    private let lock = NSLock()
    private var finished: [Int64] = []

    init(lines: [String]) {
        self.lines = lines
    }

    var finishedKeys: [Int64] { lock.withLock { finished } }

    func nextBatch(after previous: UploadBatch?, maximumEvents: Int, maximumBytes: Int) throws(UploadError)
        -> UploadBatch?
    {
        lock.withLock {
            let start = max(previous?.keys.last ?? 0, finished.last ?? 0)
            var batch = UploadBatch()
            var bytes = 0
            for key in (start + 1)..<(Int64(lines.count) + 1) {
                guard batch.count < maximumEvents,
                    batch.append(lines[Int(key) - 1], key: key, bytes: &bytes, maximumBytes: maximumBytes)
                else { break }
            }
            return batch.count == 0 ? nil : batch
        }
    }

    func finish(_ batch: UploadBatch, rejected: [DropReason: Int], unseen: Bool) throws(UploadError) {
        lock.withLock { finished += batch.keys }
    }

    func pendingCount() throws(UploadError) -> Int {
        lock.withLock { lines.count - finished.count }
    }

    func endUploading() {}
}

/// Accepts every line, but answers the first request only once the second has been answered: answers that come
/// back out of the order the batches were read.
private final class SecondFirstTransport: UploadTransport {
    private let inner = ScriptedTransport([.accept])
    private let state = StateLock<(sent: Int, answered: [Int], waiting: CheckedContinuation<Void, Never>?)>(
        (0, [], nil))

    /// The requests in the order they were answered (1 is the first sent).
    var answered: [Int] { state.withLock { $0.answered } }

    func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws -> UploadResponse {
        let number = state.withLock { state in
            state.sent += 1
            return state.sent
        }
        if number == 1 {
            await withCheckedContinuation { continuation in
                let secondDone = state.withLock { state in
                    if state.answered.contains(2) { return true }
                    state.waiting = continuation
                    return false
                }
                if secondDone { continuation.resume() }
            }
        }
        let response = try await inner.send(body, to: endpoint, writeKey: writeKey, timeout: timeout)
        let waiting = state.withLock { state in
            state.answered.append(number)
            defer { state.waiting = nil }
            return number == 2 ? state.waiting : nil
        }
        waiting?.resume()
        return response
    }
}
