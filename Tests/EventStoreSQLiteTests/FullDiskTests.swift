import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// A database that cannot grow (`PRAGMA max_page_count`): writes fail with a clear error, the file stays intact,
/// earlier events stay readable. (`alstats ingest` on a full disk: alstatsTests' `FullDiskCLITests`.)
struct FullDiskTests {
    @Test func aFullDatabaseRefusesTheBatchClearlyAndKeepsEverythingCommitted() throws {
        let database = TemporaryDatabase()
        let first = sampleEvents(500)
        do { try SQLiteEventStore(path: database.path).write(first) }
        let pages = Int(try SQLiteConnection(path: database.path, create: false).scalarInt("PRAGMA page_count"))
        let store = try SQLiteEventStore(path: database.path, options: .init(maximumPageCount: pages + 2))
        var failure: StoreError?
        var written = 0
        for batch in 0..<200 where failure == nil {
            do throws(StoreError) {
                written += try store.write(sampleEvents(200, idPrefix: "batch-\(batch)"))
            } catch {
                failure = error
            }
        }
        let error = try #require(failure)
        #expect(error.kind == .io)
        #expect(error.message.contains("full") && error.message.contains(database.path))
        #expect(try store.count() == first.count + written)

        let check = try SQLiteConnection(path: database.path, create: false)
        #expect(try check.scalarText("PRAGMA integrity_check") == "ok")
        var exported: [String] = []
        try SQLiteEventStore(path: database.path).forEachEvent { exported.append(NDJSONCodec.line(for: $0)) }
        let expected = Set(first.map { NDJSONCodec.line(for: SQLiteEventStore.Options().redactor.redact($0)) })
        #expect(expected.isSubset(of: Set(exported)))
        // With room again, the same store object writes.
        #expect(try SQLiteEventStore(path: database.path).write(sampleEvents(10, idPrefix: "room")) == 10)
    }

    @Test func aSinkOnAFullDatabaseCountsWhatItCouldNotWriteAndTheHostGoesOn() throws {
        let database = TemporaryDatabase()
        do { _ = try SQLiteEventStore(path: database.path) }
        let pages = Int(try SQLiteConnection(path: database.path, create: false).scalarInt("PRAGMA page_count"))
        let sink = try SQLiteEventSink(
            path: database.path, commitPolicy: SinkCommitPolicy(maximumEvents: 250, maximumDelay: .seconds(60)),
            options: .init(maximumPageCount: pages + 20))
        let bus = MeasurementEventBus()
        bus.attach(sink, options: ObserverOptions(label: "sqlite", bufferCapacity: 100_000))
        let posted = 20_000
        for index in 0..<posted {
            bus.post(
                EventName.navOut, fields: [FieldName.ref: "r\(index % 7)", "n": "\(index)", "pad": "\(index)-xxxxxx"])
        }
        #expect(bus.post("after_full", fields: [:]) != nil)  // the host still posts
        bus.flush()
        let statistics = bus.statistics.observers[0]
        let lost = statistics.dropped[.sinkError] ?? 0
        #expect(lost > 0)
        #expect(statistics.delivered + lost == posted + 1)
        bus.close()

        let check = try SQLiteConnection(path: database.path, create: false)
        #expect(try check.scalarText("PRAGMA integrity_check") == "ok")
        let stored = Int(try check.scalarInt("SELECT count(*) FROM events"))
        #expect(stored == statistics.delivered, "stored \(stored), delivered \(statistics.delivered), lost \(lost)")
    }
}
