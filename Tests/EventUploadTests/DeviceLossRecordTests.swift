import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

/// Loss records on a scripted transport: their lines, ids and resends.
@Suite struct DeviceLossRecordTests {
    /// The loss records among the lines of each request.
    func records(_ transport: ScriptedTransport) -> [[MeasurementEvent]] {
        transport.requests.map { request in
            request.lines.compactMap { try? NDJSONCodec().decode($0) }.filter { $0.name == DeviceLoss.eventName }
        }
    }

    @Test func aLossRecordIsResentWithItsOwnIdUntilAReceiptAnswersIt() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.status(503), .accept])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(3), to: sink)
        try sink.recordLosses([.bufferFull: 5])
        try await sink.upload()
        let sent = records(transport)
        #expect(sent.count == 2)
        #expect(sent.map(\.count) == [1, 1])
        #expect(sent[0].first?.id == sent[1].first?.id, "the same id both times")
        #expect(sent[0].first.flatMap(DeviceLoss.init) == DeviceLoss(reason: .bufferFull, count: 5))
        try await sink.upload()
        #expect(transport.requests.count == 2, "nothing left to send")
    }

    @Test func anEventTooLargeForAnyBatchIsReportedToTheCollector() async throws {
        let folder = TemporaryFolder()
        let transport = ScriptedTransport([.accept])
        let sink = try makeSink(in: folder, transport: transport)
        try post(numberedEvents(1, padding: 600_000), to: sink)
        try await sink.upload()  // drops it, counted on the device
        try await sink.upload()  // sends the record
        let sent = records(transport).flatMap { $0 }
        #expect(sent.count == 1)
        #expect(sent.first.flatMap(DeviceLoss.init) == DeviceLoss(reason: "upload_rejected:too_large", count: 1))
    }
}
