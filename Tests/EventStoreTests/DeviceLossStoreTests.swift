import EventStore
import MeasurementEvents
import TestSupport
import Testing

/// A device's loss record (`alstats_loss`) written through the store's one write path: counted in
/// completeness as `device:REASON` when stored as new, never twice, and never as an App Links event.
@Suite struct DeviceLossStoreTests {
    let record = DeviceLoss(reason: .bufferFull, count: 12).event(timestamp: 1_763_683_200_000)

    @Test func aNewLossRecordIsCountedInCompletenessUnderTheDevicesReason() throws {
        let database = TemporaryDatabase()
        let store = try EventStore(path: database.path)
        let stored = try store.writeBatches([[record]])
        #expect(stored == [1])
        #expect(try store.completeness()["dropped"]?["device:buffer_full"] == 12)
    }

    @Test func aLossRecordSentAgainIsADuplicateAndCountsNothingMore() throws {
        let database = TemporaryDatabase()
        let store = try EventStore(path: database.path)
        _ = try store.writeBatches([[record]])
        #expect(try store.writeBatches([[record], [record]]) == [0, 0])
        #expect(try store.completeness()["dropped"]?["device:buffer_full"] == 12)
    }

    @Test func aRecordInTheSameRequestTwiceCountsOnce() throws {
        let database = TemporaryDatabase()
        let store = try EventStore(path: database.path)
        #expect(try store.writeBatches([[record, record]]) == [1])
        #expect(try store.completeness()["dropped"]?["device:buffer_full"] == 12)
    }

    @Test func theDevicesRejectionsStayRejectionsAndAFullOutboxIsADrop() throws {
        let database = TemporaryDatabase()
        let store = try EventStore(path: database.path)
        let rejected = DeviceLoss(reason: .tooManyFields, count: 3).event(timestamp: 1_763_683_200_000)
        let full = DeviceLoss(reason: "outbox_full", count: 5).event(timestamp: 1_763_683_200_000)
        _ = try store.writeBatches([[rejected, full]])
        let completeness = try store.completeness()
        #expect(completeness["rejected"]?["device:too_many_fields"] == 3)
        #expect(completeness["dropped"]?["device:outbox_full"] == 5)
    }

    @Test(arguments: [
        ["reason": "buffer_full", "count": "0"], ["reason": "buffer_full", "count": "-4"],
        ["reason": "buffer_full", "count": "12x"], ["reason": "buffer_full", "count": "99999999999999999999"],
        ["reason": "", "count": "3"], ["count": "3"], ["reason": "buffer_full"],
        ["reason": String(repeating: "r", count: 200), "count": "3"],
    ])
    func aMalformedLossRecordIsAnOrdinaryEventAndCountsNothing(fields: [String: String]) throws {
        let database = TemporaryDatabase()
        let store = try EventStore(path: database.path)
        let event = MeasurementEvent(name: DeviceLoss.eventName, fields: fields, timestamp: 1_763_683_200_000)
        #expect(DeviceLoss(event) == nil)
        #expect(try store.writeBatches([[event]]) == [1])
        #expect(try store.completeness().isEmpty)
    }

    @Test func severalRecordsInOneRequestEachCount() throws {
        let database = TemporaryDatabase()
        let store = try EventStore(path: database.path)
        let records = (0..<3).map { _ in DeviceLoss(reason: .bufferFull, count: 1).event(timestamp: 1_763_683_200_000) }
        _ = try store.writeBatches([records])
        #expect(try store.completeness()["dropped"]?["device:buffer_full"] == 3)
    }
}
