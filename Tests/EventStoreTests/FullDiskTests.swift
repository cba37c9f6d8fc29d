import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStore
@testable import EventStoreInterface
@testable import SQLiteSupport

/// A database that cannot grow (`PRAGMA max_page_count`, or a file-size limit on the `alstats` process):
/// writes fail with a clear error, the file stays intact, earlier events stay readable.
struct FullDiskTests {
    @Test func aFullDatabaseRefusesTheBatchClearlyAndKeepsEverythingCommitted() throws {
        let database = TemporaryDatabase()
        let first = sampleEvents(500)
        do { try EventStore(path: database.path).write(first) }
        let pages = Int(try SQLiteConnection(path: database.path, create: false).scalarInt("PRAGMA page_count"))
        let store = try EventStore(path: database.path, options: .init(maximumPageCount: pages + 2))
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
        try EventStore(path: database.path).forEachEvent { exported.append(NDJSONCodec.line(for: $0)) }
        let expected = Set(first.map { NDJSONCodec.line(for: EventStore.Options().redactor.redact($0)) })
        #expect(expected.isSubset(of: Set(exported)))
        // With room again, the same store object writes.
        #expect(try EventStore(path: database.path).write(sampleEvents(10, idPrefix: "room")) == 10)
    }

    @Test func aSinkOnAFullDatabaseCountsWhatItCouldNotWriteAndTheHostGoesOn() throws {
        let database = TemporaryDatabase()
        do { _ = try EventStore(path: database.path) }
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

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func ingestOntoAFullDiskExitsWith74AndKeepsTheFileIntact() throws {
        let database = TemporaryDatabase()
        let first = sampleEvents(200, idPrefix: "first")
        try first.map(NDJSONCodec.line(for:)).joined(separator: "\n")
            .write(toFile: database.file("first.ndjson"), atomically: true, encoding: .utf8)
        try sampleEvents(30_000, idPrefix: "big").map(NDJSONCodec.line(for:)).joined(separator: "\n")
            .write(toFile: database.file("big.ndjson"), atomically: true, encoding: .utf8)
        #expect(try BuiltAlstats.run(["ingest", "first.ndjson"], in: database.folder).status == 0)

        // A file-size limit on the process stands in for a full disk (no mount needed): writes past it fail
        // with EFBIG (SIGXFSZ ignored), as on a quota.
        let kilobytes = TemporaryDatabase.bytes(database.path).count / 1024 + 256
        let script = "trap '' XFSZ; ulimit -f \(kilobytes); exec \"$0\" ingest big.ndjson"
        let full = try ProcessRunner.run("/bin/bash", ["-c", script, BuiltAlstats.require()], in: database.folder)
        #expect(full.status == 74)
        #expect(full.errors.contains("full") && full.errors.split(separator: "\n").count == 1, "\(full.errors)")

        let check = try SQLiteConnection(path: database.path, create: false)
        #expect(try check.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try check.scalarInt("SELECT count(*) FROM events WHERE id LIKE 'first-%'") == 200)
        let retry = try BuiltAlstats.run(["ingest", "big.ndjson"], in: database.folder)
        #expect(retry.status == 0, "\(retry.errors)")
        #expect(try check.scalarInt("SELECT count(*) FROM events") == 30_200)
    }
}
