import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// A device's loss record (`alstats_loss`) written through the store's one write path: counted in
/// completeness as `device:REASON` when stored as new, never twice, and never as an App Links event.
@Suite struct DeviceLossStoreTests {
    let record = DeviceLoss(reason: .bufferFull, count: 12).event(timestamp: 1_763_683_200_000)

    @Test func aNewLossRecordIsCountedInCompletenessUnderTheDevicesReason() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let stored = try store.writeBatches([[record]])
        #expect(stored == [1])
        #expect(try store.completeness()["dropped"]?["device:buffer_full"] == 12)
    }

    @Test func aLossRecordSentAgainIsADuplicateAndCountsNothingMore() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        _ = try store.writeBatches([[record]])
        #expect(try store.writeBatches([[record], [record]]) == [0, 0])
        #expect(try store.completeness()["dropped"]?["device:buffer_full"] == 12)
    }

    @Test func aRecordInTheSameRequestTwiceCountsOnce() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.writeBatches([[record, record]]) == [1])
        #expect(try store.completeness()["dropped"]?["device:buffer_full"] == 12)
    }

    @Test func theDevicesRejectionsStayRejectionsAndAFullOutboxIsADrop() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
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
        let store = try SQLiteEventStore(path: database.path)
        let event = MeasurementEvent(name: DeviceLoss.eventName, fields: fields, timestamp: 1_763_683_200_000)
        #expect(DeviceLoss(event) == nil)
        #expect(try store.writeBatches([[event]]) == [1])
        #expect(try store.completeness().isEmpty)
    }

    /// A rebuild of the rollups leaves out what the writer left out: every well-formed loss record (at the edges of its
    /// reason's length and its count too), and no malformed one, which is an ordinary event there as here.
    @Test func aRebuildLeavesTheLossRecordsOutOfTheRollupsAsTheWriterDid() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let time: Int64 = 1_763_683_200_000
        let malformed: [[String: String]] = [
            ["reason": "buffer_full", "count": "0"], ["reason": "buffer_full", "count": "-4"],
            ["reason": "buffer_full", "count": "12x"], ["reason": "buffer_full", "count": "99999999999999999999"],
            ["reason": "buffer_full", "count": "1000000000001"], ["reason": "buffer_full", "count": ""],
            ["reason": "buffer_full", "count": " 3"], ["reason": "", "count": "3"], ["count": "3"],
            ["reason": "buffer_full"], ["reason": String(repeating: "é", count: 65), "count": "3"],
        ]
        let wellFormed: [[String: String]] = [
            ["reason": "buffer_full", "count": "1"], ["reason": "r", "count": "1000000000000"],
            ["reason": String(repeating: "é", count: 64), "count": "0012"],
        ]
        let losses = (malformed + wellFormed).map {
            MeasurementEvent(name: DeviceLoss.eventName, fields: $0, timestamp: time)
        }
        #expect(losses.filter { DeviceLoss($0) != nil }.count == wellFormed.count)
        let ordinary = MeasurementEvent(
            name: EventName.navOut, fields: ["success": "1", "type": "app"], timestamp: time)
        #expect(try store.writeBatches([losses + [ordinary]]) == [losses.count + 1])
        let written = try rollupRows(database.path)
        try store.rebuildRollups()
        #expect(try rollupRows(database.path) == written)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(
            try connection.scalarInt("SELECT sum(count) FROM event_rollup WHERE name = 'alstats_loss'")
                == Int64(malformed.count))
    }

    @Test func severalRecordsInOneRequestEachCount() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let records = (0..<3).map { _ in DeviceLoss(reason: .bufferFull, count: 1).event(timestamp: 1_763_683_200_000) }
        _ = try store.writeBatches([records])
        #expect(try store.completeness()["dropped"]?["device:buffer_full"] == 3)
    }
}
