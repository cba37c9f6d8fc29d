import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

@Suite struct HTTPEventSinkTests {
    @Test func batchesHoldAtMostFiveHundredEvents() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.accept])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(1_200), to: sink)  // one commit: 18 inserts of 64 lines, then 48 of one
        #expect(sink.status.pending == 1_200)
        try await sink.upload()
        #expect(transport.requests.map(\.lines.count) == [500, 500, 200])
        let indexes = transport.requests.flatMap(\.lines).compactMap { try? NDJSONCodec().decode($0).fields["index"] }
        #expect(indexes == (0..<1_200).map(String.init))
        #expect(transport.stored.count == 1_200)
        #expect(transport.stored.values.allSatisfy { $0 == 1 })
        #expect(sink.status.accepted == 1_200)
        #expect(sink.status.pending == 0)
    }

    @Test func batchesHoldAtMost512KiBOfLines() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.accept])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(100, padding: 20_000), to: sink)
        try await sink.upload()
        for request in transport.requests {
            #expect(request.lines.reduce(0) { $0 + $1.utf8.count + 1 } <= 512 * 1024)
        }
        #expect(transport.requests.count == 4)
        #expect(transport.stored.count == 100)
    }

    @Test func aFullOutboxDropsTheOldestAndCountsThem() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.accept])
        let sink = try makeSink(in: folder, transport: transport, maximumOutboxBytes: 20_000)
        let events = numberedEvents(400)
        for start in stride(from: 0, to: 400, by: 50) { try post(Array(events[start..<start + 50]), to: sink) }
        let kept = sink.status.pending
        let dropped = sink.status.dropped[HTTPEventSink.outboxFull] ?? 0
        #expect(kept > 0 && kept < 400)
        #expect(kept + dropped == 400)
        #expect(try completeness(folder.file("outbox.sqlite"))["dropped"]?["outbox_full"] == dropped)
        try await sink.upload()
        // The newest survive: what arrives is the tail of what was posted.
        let indexes = transport.requests.flatMap(\.lines).compactMap { try? NDJSONCodec().decode($0).fields["index"] }
        #expect(indexes == (400 - kept..<400).map(String.init))
    }

    @Test func aTooLargeAnswerSplitsTheBatchUntilItFits() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.limit(lines: 100)])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(500), to: sink)
        try await sink.upload()
        #expect(transport.stored.count == 500)
        #expect(transport.stored.values.allSatisfy { $0 == 1 })
        #expect(sink.status.dropped.isEmpty)
        // 500 → 250 + 250 → 4 × 125 → 8 × 62 or 63, each sent after the one before was answered.
        #expect(
            transport.requests.filter { $0.lines.count <= 100 }.map(\.lines.count)
                == Array(repeating: [62, 63], count: 4).flatMap { $0 })
    }

    @Test func aSplitBatchStoppedAfterItsFirstPartsSendsOnlyTheRestAfterARestart() async throws {
        let folder = TemporaryFolder()
        // 500 → 413; 250 → 413; 125 → 413; 62 and 63 accepted; then the network is gone.
        let first = ScriptedTransport([
            .status(413), .status(413), .status(413), .accept, .accept, .networkError,
        ])
        let sink = try makeSink(in: folder, transport: first, policy: UploadPolicy(giveUpAfter: .seconds(1)))
        try post(numberedEvents(500), to: sink)
        await #expect(throws: UploadError.self) { try await sink.upload() }
        #expect(first.stored.count == 125)
        let second = ScriptedTransport([.accept])
        let restarted = try makeSink(in: folder, transport: second)
        #expect(restarted.status.pending == 375)
        try await restarted.upload()
        #expect(Set(first.stored.keys).isDisjoint(with: second.stored.keys))
        #expect(first.stored.count + second.stored.count == 500)
        let indexes = second.requests.flatMap(\.lines).compactMap { try? NDJSONCodec().decode($0).fields["index"] }
        #expect(indexes == (125..<500).map(String.init))
        #expect(restarted.status.pending == 0)
    }

    @Test func anEventTooLargeAloneIsDroppedAndCounted() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.accept])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(1, padding: 600_000) + numberedEvents(2, start: 1), to: sink)
        try await sink.upload()
        // The two others, and the loss record that tells the collector of the third.
        #expect(transport.stored.count == 3)
        let lines = transport.requests.flatMap(\.lines)
        #expect(lines.filter { $0.contains("\"\(DeviceLoss.eventName)\"") }.count == 1)
        #expect(sink.status.dropped == ["upload_rejected:too_large": 1])
        #expect(try completeness(folder.file("outbox.sqlite"))["rejected"]?["upload_rejected:too_large"] == 1)
    }

    @Test func aRefusedKeyPausesAndDeletesNothing() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.status(401), .accept])
        let sink = try makeSink(in: folder, transport: transport, writeKey: "wrong")
        try post(numberedEvents(10), to: sink)
        do {
            try await sink.upload()
            Issue.record("a refused key must stop the upload")
        } catch {
            #expect(error.kind == .refused(status: 401))
        }
        #expect(sink.status.isPaused)
        #expect(sink.status.pending == 10)
        // Paused: no request until resumed.
        await #expect(throws: UploadError.self) { try await sink.upload() }
        #expect(transport.requests.count == 1)
        sink.resume(writeKey: "right")
        try await sink.upload()
        #expect(transport.requests.last?.writeKey == "right")
        #expect(transport.stored.count == 10)
        #expect(!sink.status.isPaused)
    }

    @Test(arguments: [403, 404, 415])
    func anotherClientErrorPausesWithTheStatus(status: Int) async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.status(status)])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(3), to: sink)
        await #expect(throws: UploadError.self) { try await sink.upload() }
        #expect(sink.status.pause?.message.contains(String(status)) == true)
        #expect(sink.status.pending == 3)
    }

    @Test func rejectedLinesAreDroppedAndCountedAndTheRestAreDone() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.reject([2, 5], reason: "missing ts"), .accept])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(8), to: sink)
        try await sink.upload()
        #expect(transport.requests.count == 1)
        #expect(transport.stored.count == 6)
        #expect(sink.status.dropped == ["upload_rejected:missing_ts": 2])
        #expect(sink.status.pending == 0)
        #expect(try completeness(folder.file("outbox.sqlite"))["rejected"]?["upload_rejected:missing_ts"] == 2)
    }

    @Test func aBatchEveryLineOfWhichIsRejectedIsDoneAndCounted() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.reject([1, 2, 3], reason: "too_large"), .accept])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(3), to: sink)
        try await sink.upload()
        #expect(transport.requests.count == 1)
        #expect(sink.status.dropped == ["upload_rejected:too_large": 3])
        #expect(sink.status.pending == 0)
    }

    /// A 400 without a receipt is a body the collector could not read whole (damaged on the way): it says nothing
    /// against any line, so the batch goes again whole and nothing is dropped.
    @Test func aBadRequestWithoutReceiptIsSentAgainWholeAndDropsNothing() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.status(400, body: #"{"error":"not a whole gzip stream"}"#), .accept])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(4), to: sink)
        try await sink.upload()
        #expect(transport.requests.map(\.lines.count) == [4, 4])
        #expect(transport.stored.count == 4)
        #expect(sink.status.dropped.isEmpty)
    }

    @Test func aSecondProcessOpeningTheOutboxSendsOnlyWhatWasNotAcknowledged() async throws {
        let folder = TemporaryFolder()
        let first = ScriptedTransport([.accept, .networkError])
        let sink = try makeSink(in: folder, transport: first, policy: UploadPolicy(giveUpAfter: .seconds(1)))
        try post(numberedEvents(700), to: sink)
        await #expect(throws: UploadError.self) { try await sink.upload() }
        #expect(first.stored.count == 500)
        let second = ScriptedTransport([.accept])
        let restarted = try makeSink(in: folder, transport: second)
        #expect(restarted.status.pending == 200)
        try await restarted.upload()
        #expect(Set(first.stored.keys).isDisjoint(with: second.stored.keys))
        #expect(first.stored.count + second.stored.count == 700)
    }

    @Test func theBusThroughTheSinkDeliversEveryEventOnceInTheBackground() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.accept])
        let sink = try makeSink(in: folder, transport: transport)
        let bus = MeasurementEventBus()
        bus.attach(sink)
        let uploads = Task { await sink.run() }
        for index in 0..<1_000 { bus.post(EventName.navIn, fields: ["index": String(index)]) }
        await bus.flush()
        try await sink.upload()  // returns once what the background run had not sent yet is sent
        #expect(transport.stored.count == 1_000)
        #expect(transport.stored.values.allSatisfy { $0 == 1 })
        uploads.cancel()
        await uploads.value
        await bus.close()
    }
}
