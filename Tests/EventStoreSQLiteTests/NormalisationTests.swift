import EventIngest
import Foundation
import MeasurementEvents
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite

/// Keys compare by bytes: two keys that differ only in Unicode normalisation are refused and counted, never
/// merged; a key in either normalisation alone round-trips exactly.
struct NormalisationTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func theTwoSpellingsAreEqualStringsWithDifferentBytes() {
        #expect(Self.composed == Self.decomposed)
        #expect(!Self.composed.utf8.elementsEqual(Self.decomposed.utf8))
    }

    @Test func ingestRefusesALineWithBothSpellingsAndCountsIt() throws {
        let database = TemporaryDatabase()
        let file = database.file("in.ndjson")
        let lines = [
            #"{"id":"both","name":"al_nav_in","ts":1,"fields":{"\#(Self.composed)":"1","\#(Self.decomposed)":"2"}}"#,
            #"{"id":"nested","name":"al_nav_in","ts":2,"fields":{"\#(Self.composed)":1,"\#(Self.decomposed)":2}}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        var invalid: [IngestError] = []
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { invalid.append($0) })
        #expect(summary.stored == 0)
        #expect(invalid.count == 2)
        #expect(invalid.allSatisfy { $0.reason.contains("Unicode normalisation") })
        #expect(try store.completeness()["rejected"]?["keys_differ_in_normalisation"] == 2)
    }

    @Test func eitherSpellingAloneRoundTripsThroughIngestExportAndReingest() throws {
        let database = TemporaryDatabase()
        let file = database.file("in.ndjson")
        let lines = [
            #"{"id":"a","name":"al_nav_in","ts":1,"fields":{"\#(Self.composed)":"1","ref":"x"}}"#,
            #"{"id":"b","name":"al_nav_in","ts":2,"fields":{"\#(Self.decomposed)":"2","ref":"y"}}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        _ = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in Issue.record("invalid") })
        var exported = Data()
        try store.export { exported.append(contentsOf: $0) }
        #expect(exported.range(of: Data(Self.composed.utf8)) != nil)
        #expect(exported.range(of: Data(Self.decomposed.utf8)) != nil)
        let copy = TemporaryDatabase()
        let exportedFile = copy.file("export.ndjson")
        try exported.write(to: URL(fileURLWithPath: exportedFile))
        let second = try SQLiteEventStore(path: copy.path)
        #expect(try second.ingest([IngestInput(path: exportedFile)], onInvalidLine: { _ in }).stored == 2)
        var again = Data()
        try second.export { again.append(contentsOf: $0) }
        #expect(again == exported)
    }

    @Test func theBusRefusesValuesWithBothSpellingsAndTheSinkCountsIt() throws {
        let database = TemporaryDatabase()
        let sink = try SQLiteEventSink(path: database.path)
        let bus = MeasurementEventBus()
        bus.attach(sink, options: ObserverOptions(label: "sqlite"))
        #expect(bus.post(EventName.navIn, values: [Self.composed: .string("1"), Self.decomposed: .string("2")]) == nil)
        #expect(bus.post(EventName.navIn, values: [Self.decomposed: .string("2")]) != nil)
        bus.flush()
        #expect(bus.statistics.rejected[.keysDifferOnlyInNormalisation] == 1)
        bus.close()
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.count() == 1)
        #expect(try store.completeness()["rejected"]?["keys_differ_in_normalisation"] == 1)
        var exported = Data()
        try store.export { exported.append(contentsOf: $0) }
        #expect(exported.range(of: Data(Self.decomposed.utf8)) != nil)
    }
}
