import EventIngest
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite

/// The generic ingest (``EventBackend/ingestNDJSON(_:options:onInvalidLine:progress:)``), run against the SQLite
/// store through the protocol, gives the counts, completeness and export of the tuned SQLite ingest.
struct BackendIngestTests {
    /// Valid lines (some with secrets, some without ids), a line twice, an invalid line, a line over the field
    /// limit and a value cut to the length limit.
    static func input() -> String {
        let longValue = String(repeating: "v", count: 70_000)
        let tooMany = (0..<100_000).map { #""k\#($0)":"v""# }.joined(separator: ",")
        var lines = sampleEvents(40).map(NDJSONCodec.line(for:))
        lines.append(#"{"name":"al_nav_out","ts":1763683200001,"fields":{"success":"1","access_token":"s3cret"}}"#)
        lines.append(#"{"name":"al_nav_in","ts":"2025-11-21T00:00:00Z","fields":{"ref":"no id"}}"#)
        lines.append(lines[3])
        lines.append(#"{"name":"#)
        lines.append(#"{"id":"too-many","name":"al_nav_in","ts":1763683200000,"fields":{\#(tooMany)}}"#)
        lines.append(#"{"id":"long","name":"al_nav_in","ts":1763683200000,"fields":{"note":"\#(longValue)"}}"#)
        lines.append("")
        return lines.joined(separator: "\n") + "\n"
    }

    struct Outcome: Equatable {
        var summary: IngestSummary
        var invalid: [String]
        var completeness: [String: [String: Int]]
        var export: Data
    }

    static func tuned(_ file: String, into path: String, options: IngestOptions) throws -> Outcome {
        let store = try SQLiteEventStore(path: path)
        var invalid: [String] = []
        let summary = try store.ingest(
            [IngestInput(path: file)], options: options, onInvalidLine: { invalid.append($0.description) })
        var export = Data()
        try store.export { export.append(contentsOf: $0) }
        return Outcome(summary: summary, invalid: invalid, completeness: try store.completeness(), export: export)
    }

    static func generic(_ file: String, into path: String, options: IngestOptions) async throws -> Outcome {
        let backend: any EventBackend = try SQLiteEventStore(path: path)
        var invalid: [String] = []
        let summary = try await backend.ingestNDJSON(
            [IngestInput(path: file)], options: options, onInvalidLine: { invalid.append($0.description) })
        var export = Data()
        try await backend.exportNDJSON(since: .min, until: .max) { export.append(contentsOf: $0) }
        let completeness = try await backend.completeness()
        try await backend.close()
        return Outcome(summary: summary, invalid: invalid, completeness: completeness, export: export)
    }

    @Test(arguments: [IngestOptions(), IngestOptions(batchSize: 7), IngestOptions(strict: true)])
    func theGenericIngestCountsStoresAndExportsAsTheTunedOne(options: IngestOptions) async throws {
        let database = TemporaryDatabase()
        let file = database.file("in.ndjson")
        try Self.input().write(toFile: file, atomically: true, encoding: .utf8)
        let tuned = try Self.tuned(file, into: database.file("tuned.sqlite"), options: options)
        let generic = try await Self.generic(file, into: database.file("generic.sqlite"), options: options)
        #expect(generic == tuned)
        #expect(generic.summary.lines == 46)
        #expect(generic.summary.invalid == 2)
        #expect(generic.invalid.first?.contains("in.ndjson:44:") == true)
        if options.strict {
            #expect(!generic.summary.committed)
            #expect(generic.export.isEmpty)
            #expect(generic.completeness.isEmpty)
        } else {
            #expect(generic.summary.stored == 43)
            #expect(generic.summary.duplicates == 1)
            #expect(generic.completeness["rejected"]?["too_many_fields"] == 1)
            #expect(generic.completeness["altered"]?["value_truncated"] == 1)
            #expect(!String(decoding: generic.export, as: UTF8.self).contains("s3cret"))
        }
    }

    @Test func aSecondGenericIngestStoresNothingTwice() async throws {
        let database = TemporaryDatabase()
        let file = database.file("in.ndjson")
        try Self.input().write(toFile: file, atomically: true, encoding: .utf8)
        let first = try await Self.generic(file, into: database.path, options: IngestOptions(batchSize: 5))
        let second = try await Self.generic(file, into: database.path, options: IngestOptions(batchSize: 5))
        #expect(second.summary.stored == 0)
        #expect(second.summary.duplicates == first.summary.stored + first.summary.duplicates)
        #expect(second.export == first.export)
    }

    @Test func aMissingInputFailsBeforeAnythingIsWritten() async throws {
        let database = TemporaryDatabase()
        let backend: any EventBackend = try SQLiteEventStore(path: database.path)
        await #expect(throws: IngestError.self) {
            _ = try await backend.ingestNDJSON(
                [IngestInput(path: database.file("nope.ndjson"))], onInvalidLine: { _ in })
        }
        #expect(try await backend.count() == 0)
    }
}
