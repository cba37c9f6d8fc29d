import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// Another process's connection holding the database: a writer waits up to its busy timeout, then fails
/// with a clear error and loses nothing; readers never block the WAL writer.
struct LockTests {
    @Test func aWriterBlockedByAnotherWriterFailsClearlyLosesNothingAndSucceedsOnRetry() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path, options: .init(busyTimeout: .milliseconds(20)))
        try store.write(sampleEvents(100))
        let other = try SQLiteConnection(path: database.path, create: false)
        try other.execute("BEGIN IMMEDIATE")

        let error = #expect(throws: StoreError.self) { try store.write(sampleEvents(10, idPrefix: "blocked")) }
        #expect(error?.kind == .io)
        #expect(error?.message.contains("locked by another writer") == true)
        #expect(error?.message.contains(database.path) == true)
        #expect(try store.count() == 100)

        try other.execute("COMMIT")
        #expect(try store.write(sampleEvents(10, idPrefix: "blocked")) == 10)
        #expect(try store.count() == 110)
    }

    @Test func aLongReaderDoesNotBlockTheWriterAndKeepsItsSnapshot() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path, options: .init(busyTimeout: .milliseconds(20)))
        try store.write(sampleEvents(100))
        let reader = try SQLiteConnection(path: database.path, create: false)
        try reader.execute("BEGIN")
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 100)

        #expect(try store.write(sampleEvents(50, idPrefix: "while-reading")) == 50)
        #expect(try store.count() == 150)
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 100)
        try reader.execute("COMMIT")
        #expect(try reader.scalarInt("SELECT count(*) FROM events") == 150)
    }

    @Test func aSinkBlockedByAnotherWriterCountsTheBatchAsSinkErrorsAndRecovers() throws {
        let database = TemporaryDatabase()
        let sink = try SQLiteEventSink(
            path: database.path, commitPolicy: SinkCommitPolicy(maximumEvents: 100, maximumDelay: .seconds(60)),
            options: .init(busyTimeout: .milliseconds(20)))
        let bus = MeasurementEventBus()
        bus.attach(sink)
        for event in sampleEvents(100) { bus.publish(event) }
        bus.flush()
        let other = try SQLiteConnection(path: database.path, create: false)
        try other.execute("BEGIN IMMEDIATE")
        for event in sampleEvents(30, idPrefix: "blocked") { bus.publish(event) }
        bus.flush()
        #expect(bus.statistics.observers[0].dropped[.sinkError] == 30)
        try other.execute("COMMIT")
        for event in sampleEvents(20, idPrefix: "after") { bus.publish(event) }
        bus.close()
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.count() == 120)
        #expect(try store.completeness()["dropped"]?["sink_error"] == 30)
    }
}
