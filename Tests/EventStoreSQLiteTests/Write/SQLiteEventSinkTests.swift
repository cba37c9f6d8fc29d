import Dispatch
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

struct SQLiteEventSinkTests {
    @Test func manyConcurrentProducersLoseNothingWhileBuffersSuffice() throws {
        let database = TemporaryDatabase()
        let sink = try SQLiteEventSink(
            path: database.path, commitPolicy: SinkCommitPolicy(maximumEvents: 500, maximumDelay: .milliseconds(20)))
        let bus = MeasurementEventBus()
        bus.attach(sink, options: ObserverOptions(label: "sqlite", bufferCapacity: 100_000))
        let producers = 8
        let perProducer = 5_000
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for index in 0..<perProducer {
                bus.post(
                    EventName.navOut,
                    fields: [FieldName.ref: "p\(producer)", FieldName.success: "1", "n": "\(index)"])
            }
        }
        bus.flush()
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.count() == producers * perProducer)
        #expect(bus.statistics.totalDropped == 0)
        bus.close()
        #expect(try store.count() == producers * perProducer)
    }

    @Test func theSameEventTwiceIsStoredOnceAndCountedOnceInRollups() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let events = sampleEvents(40)
        #expect(try store.write(events) == 40)
        #expect(try store.write(events) == 0)
        #expect(try store.write(Array(events.prefix(10)) + sampleEvents(5, idPrefix: "text-id")) == 5)
        #expect(try store.count() == 45)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT sum(count) FROM event_rollup") == 45)
    }

    @Test func rollupsEqualTheirRecomputationAfterMixedWrites() throws {
        let database = TemporaryDatabase()
        let bus = MeasurementEventBus()
        let sink = try SQLiteEventSink(
            path: database.path, commitPolicy: SinkCommitPolicy(maximumEvents: 7, maximumDelay: .seconds(60)))
        bus.attach(sink)
        let events = sampleEvents(300)
        for event in events { bus.publish(event) }
        for event in events.prefix(50) { bus.publish(event) }  // duplicates through the bus
        bus.post(EventName.navOut, fields: [FieldName.success: "maybe"])  // an odd success value
        bus.flush()
        let store = try SQLiteEventStore(path: database.path)
        try store.write(Array(events.suffix(20)) + sampleEvents(30, start: 1_700_000_000_000, idPrefix: "other"))
        let written = try rollupRows(database.path)
        try store.rebuildRollups()
        let rebuilt = try rollupRows(database.path)
        #expect(written == rebuilt)
        #expect(written.count > 10)
        #expect(written.contains { $0.hasPrefix("day|") } && written.contains { $0.hasPrefix("series|") })
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT sum(count) FROM event_rollup") == 331)
        bus.close()
    }

    @Test func lossesReportedByTheBusArePersistedByReason() throws {
        let database = TemporaryDatabase()
        let sink = try SQLiteEventSink(path: database.path)
        try sink.recordLosses([.bufferFull: 3, .tooDeep: 2])
        try sink.write(sampleEvents(1))
        try sink.recordLosses([.bufferFull: 4])
        try sink.commit()
        let bus = MeasurementEventBus()
        bus.attach(sink)
        bus.post("", fields: [:])  // an empty name: rejected by the bus, reported to the sink
        bus.flush()
        bus.post(EventName.navIn, fields: [:])
        bus.close()
        let counts = try SQLiteEventStore(path: database.path).completeness()
        #expect(counts["dropped"]?["buffer_full"] == 7)
        #expect(counts["rejected"]?["too_deep"] == 2)
        #expect(counts["rejected"]?["empty_name"] == 1)
    }

    @Test func plantedTokensReachNeitherTheDatabaseNorItsWAL() throws {
        let database = TemporaryDatabase()
        let bus = MeasurementEventBus()
        let sink = try SQLiteEventSink(path: database.path)
        bus.attach(sink)
        let tokens = ["PLANTEDfragment0001", "PLANTEDjson0002", "PLANTEDdouble0003", "PLANTEDflat0004"]
        bus.post(
            EventName.navIn,
            fields: [
                FieldName.inputURL:
                    "fb123://authorize#expires_in=0&access_token=\(tokens[0])&target_url=https%3A%2F%2Fx.com",
                FieldName.targetURL:
                    "example://a?al_applink_data=%7B%22extras%22%3A%7B%22fb_access_token%22%3A%22\(tokens[1])%22%7D%7D",
                FieldName.refererURL:
                    "example://b?al_applink_data=%257B%2522fb_access_token%2522%253A%2522\(tokens[2])%2522%257D",
                "extras/fb_access_token": tokens[3],
            ])
        bus.flush()
        let wal = TemporaryDatabase.bytes(database.path + "-wal")
        #expect(!wal.isEmpty)
        let files = [wal, TemporaryDatabase.bytes(database.path)]
        for token in tokens {
            for file in files { #expect(file.range(of: Data(token.utf8)) == nil, "\(token) found on disk") }
        }
        bus.close()
        let closed = TemporaryDatabase.bytes(database.path)
        for token in tokens { #expect(closed.range(of: Data(token.utf8)) == nil) }
        #expect(closed.range(of: Data("REDACTED".utf8)) != nil)
    }

    @Test func viewsExposeFieldsToPlainSQL() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        try store.write(sampleEvents(8))
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM nav_out WHERE success = 1") == 1)
        #expect(try connection.scalarInt("SELECT count(*) FROM nav_out WHERE success = 0") == 1)
        #expect(
            try connection.scalarText("SELECT occurred_at FROM nav_in ORDER BY ts_ms LIMIT 1")
                == "2025-11-21T00:00:00.000Z")
        #expect(
            try connection.scalarText("SELECT id FROM nav_in ORDER BY ts_ms LIMIT 1")
                == "0192f5c3-8a1b-7000-8000-000000000000")
        #expect(
            try connection.scalarText("SELECT value FROM event_field WHERE key = 'extras/fb_app_id' LIMIT 1") == "0")
        #expect(
            try connection.scalarText("SELECT value FROM event_field WHERE key = 'success' AND value = 'yes'") == "yes")
        #expect(try connection.scalarInt("SELECT count(*) FROM ref_back_out WHERE referer_app_name IS NOT NULL") == 2)
    }
}

/// Every row of the three rollup tables (`event_rollup`, `event_rollup_day`, `event_rollup_series`), as
/// sortable text prefixed with the table's name.
func rollupRows(_ path: String) throws -> [String] {
    let connection = try SQLiteConnection(path: path, create: false)
    let statement = try connection.prepare(
        """
        SELECT 'rollup', bucket_ms, name, quote(ref), quote(referer_app_name), quote(type), quote(success),
               quote(source_url_host), quote(error), count FROM event_rollup
        UNION ALL
        SELECT 'day', day_ms, name, quote(ref), quote(referer_app_name), quote(type), quote(success),
               quote(source_url_host), quote(error), count FROM event_rollup_day
        UNION ALL
        SELECT 'series', bucket_ms, name, '', '', '', quote(success), '', '', count FROM event_rollup_series
        """)
    var rows: [String] = []
    while try statement.step() {
        rows.append((0..<10).map { statement.text(Int32($0)) ?? "NULL" }.joined(separator: "|"))
    }
    return rows.sorted()
}

struct ConcurrentReaderTests {
    @Test func aReaderSeesCommittedBatchesWhileTheWriterHoldsAnOpenTransaction() throws {
        let database = TemporaryDatabase()
        let sink = try SQLiteEventSink(path: database.path)
        try sink.write(sampleEvents(10))
        try sink.commit()
        try sink.write(sampleEvents(5, idPrefix: "pending"))  // written, not committed: the transaction stays open
        let reader = try SQLiteConnection(path: database.path, create: false)
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 10)
        #expect(try reader.scalarInt("SELECT sum(count) FROM event_rollup") == 10)
        try sink.commit()
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 15)
        try sink.close()
    }
}
