import EventIngest
import Foundation
import MeasurementEvents
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// Every event refused or cut over a limit is counted by reason in completeness, on both paths into storage.
struct CompletenessCountTests {
    static let longValue = String(repeating: "v", count: 70_000)

    /// One NDJSON line with `fields` as string members.
    static func line(id: String, fields: [(String, String)]) -> String {
        let members = fields.map { #""\#($0.0)":"\#($0.1)""# }.joined(separator: ",")
        return #"{"id":"\#(id)","name":"al_nav_in","ts":1763683200000,"fields":{\#(members)}}"#
    }

    @Test func ingestCountsRejectedAndTruncatedEventsAndTheReportCanReadThem() throws {
        let database = TemporaryDatabase()
        let tooMany = (0..<100_000).map { ("k\($0)", "v") }
        let lines = [
            Self.line(id: "ok", fields: [("ref", "a")]),
            Self.line(id: "too-many", fields: tooMany),
            Self.line(id: "long-1", fields: [("ref", "b"), ("note", Self.longValue)]),
            Self.line(id: "long-2", fields: [("note", Self.longValue), ("other", Self.longValue)]),
        ]
        let file = database.file("in.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        var invalid: [IngestError] = []
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { invalid.append($0) })
        #expect(summary.stored == 3)
        #expect(invalid.count == 1)
        #expect(invalid.first?.reason.contains("100000 fields") == true)
        #expect(summary.limited == [.tooManyFields: 1, .valueTruncated: 2])
        let completeness = try store.completeness()
        #expect(completeness["rejected"]?["too_many_fields"] == 1)
        #expect(completeness["altered"]?["value_truncated"] == 2)
    }

    @Test func aStrictIngestThatCommitsNothingCountsNothing() throws {
        let database = TemporaryDatabase()
        let lines = [
            Self.line(id: "long", fields: [("note", Self.longValue)]),
            Self.line(id: "too-many", fields: (0..<300).map { ("k\($0)", "v") }),
        ]
        let file = database.file("in.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        let summary = try store.ingest(
            [IngestInput(path: file)], options: IngestOptions(strict: true), onInvalidLine: { _ in })
        #expect(!summary.committed)
        #expect(try store.count() == 0)
        #expect(try store.completeness().isEmpty)
    }

    @Test func theSinkCountsEventsTheBusCutOrRefused() throws {
        let database = TemporaryDatabase()
        let sink = try SQLiteEventSink(path: database.path)
        let bus = MeasurementEventBus()
        bus.attach(sink, options: ObserverOptions(label: "sqlite"))
        bus.post(EventName.navIn, fields: [FieldName.ref: "a", "note": Self.longValue])
        bus.post(EventName.navIn, fields: [FieldName.ref: "b"])
        bus.post(EventName.navIn, fields: Dictionary(uniqueKeysWithValues: (0..<300).map { ("k\($0)", "v") }))
        bus.flush()
        bus.close()
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.count() == 2)
        let completeness = try store.completeness()
        #expect(completeness["altered"]?["value_truncated"] == 1)
        #expect(completeness["rejected"]?["too_many_fields"] == 1)
    }

    @Test func randomIdsAreStoredOnceAcrossBatchesAndRuns() throws {
        let database = TemporaryDatabase()
        var generator = SeededGenerator(seed: 10)
        let ids = (0..<5_000).map { _ in
            EventID(uuidHigh: generator.next() & ~0xF000 | 0x4000, low: generator.next() >> 2 | 1 << 63).description
        }
        func write(_ range: Range<Int>, to name: String) throws -> String {
            let text = ids[range].map { Self.line(id: $0, fields: [("ref", "r")]) }.joined(separator: "\n")
            let file = database.file(name)
            try (text + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
        let first = try write(0..<3_000, to: "first.ndjson")
        let second = try write(1_000..<5_000, to: "second.ndjson")
        let store = try SQLiteEventStore(path: database.path)
        let options = IngestOptions(batchSize: 700)
        let one = try store.ingest([IngestInput(path: first)], options: options, onInvalidLine: { _ in })
        let two = try store.ingest(
            [IngestInput(path: second), IngestInput(path: first)], options: options, onInvalidLine: { _ in })
        #expect(one.stored == 3_000)
        #expect(two.stored == 2_000)
        #expect(two.duplicates == 5_000)
        #expect(try store.count() == 5_000)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT sum(count) FROM event_rollup") == 5_000)
        #expect(try connection.scalarInt("SELECT count(DISTINCT id) FROM events") == 5_000)
    }
}
