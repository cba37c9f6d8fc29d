import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventIngest

/// The ingest's reader: lines read on a thread of their own into a backend's rows, in input order, with the invalid
/// lines named by file and line, what was cut or refused counted by reason, and flat lines read in place only by rows
/// that take them.
struct IngestPipelineTests {
    /// Rows that take flat lines: they record which lines came read in place and which decoded.
    struct FlatRows: IngestRows {
        var names: [String] = []
        var readInPlace = 0
        var count: Int { names.count }
        mutating func append(_ line: FlatLine) -> Bool {
            names.append(String(decoding: line.name, as: UTF8.self))
            readInPlace += 1
            return true
        }
        mutating func append(_ event: MeasurementEvent) { names.append(event.name) }
    }

    static func file(_ lines: [String], in database: TemporaryDatabase) throws -> IngestInput {
        let path = database.file("in.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return IngestInput(path: path)
    }

    static let lines = [
        #"{"name":"al_nav_in","ts":1763683200000,"fields":{"ref":"a"}}"#,
        "",
        #"{"name":"al_nav_out","ts":"2025-11-21T00:00:00Z","fields":{"n":1}}"#,
        "not json",
        #"{"name":"al_ref_back_out","ts":1763683200001}"# + "\r",
        #"{"ts":1763683200002}"#,
    ]

    /// Every batch of a started pipeline, in order.
    static func batches<Rows>(_ pipeline: IngestPipeline<Rows>) -> [IngestPipeline<Rows>.Batch] {
        pipeline.start()
        var batches: [IngestPipeline<Rows>.Batch] = []
        while let batch = pipeline.next() { batches.append(batch) }
        pipeline.join()
        return batches
    }

    @Test func batchesKeepTheLinesOrderAndNameTheInvalidOnes() throws {
        let database = TemporaryDatabase()
        let input = try Self.file(Self.lines, in: database)
        let pipeline = IngestPipeline(inputs: [input], codec: NDJSONCodec(), batchSize: 2) {
            DecodedEvents(capacity: 2)
        }
        let batches = Self.batches(pipeline)
        #expect(batches.flatMap(\.rows.events).map(\.name) == ["al_nav_in", "al_nav_out", "al_ref_back_out"])
        #expect(batches.map(\.lines).reduce(0, +) == 5)  // the blank line is not a line of the input's events
        let errors = batches.flatMap(\.errors)
        #expect(errors.map(\.line) == [4, 6])
        #expect(errors.allSatisfy { $0.file == input.path && !$0.reason.isEmpty })
        #expect(batches.allSatisfy { $0.failure == nil })
        #expect(batches.last?.bytes == TemporaryDatabase.bytes(input.path).count)
    }

    @Test func rowsThatTakeFlatLinesGetTheFlatOnesReadInPlaceAndTheRestDecoded() throws {
        let database = TemporaryDatabase()
        let input = try Self.file(Self.lines, in: database)
        let pipeline = IngestPipeline(inputs: [input], codec: NDJSONCodec(), batchSize: 100) { FlatRows() }
        let rows = Self.batches(pipeline).map(\.rows)
        #expect(rows.flatMap(\.names) == ["al_nav_in", "al_nav_out", "al_ref_back_out"])
        // The number field of the second line is not the flat shape: it is decoded (and flattened).
        #expect(rows.map(\.readInPlace).reduce(0, +) == 2)
    }

    @Test func aMissingInputEndsTheReadWithItsFailure() throws {
        let pipeline = IngestPipeline(
            inputs: [IngestInput(path: "/nonexistent/alstats.ndjson")], codec: NDJSONCodec(), batchSize: 10
        ) { DecodedEvents(capacity: 10) }
        let batches = Self.batches(pipeline)
        #expect(batches.count == 1)
        #expect(batches[0].failure?.kind == .missingFile)
    }

    @Test func cancellingStopsTheReaderBeforeTheEnd() throws {
        let database = TemporaryDatabase()
        let many = Array(repeating: Self.lines[0], count: 20_000)
        let input = try Self.file(many, in: database)
        let pipeline = IngestPipeline(inputs: [input], codec: NDJSONCodec(), batchSize: 10) {
            DecodedEvents(capacity: 10)
        }
        pipeline.start()
        let first = pipeline.next()
        #expect(first?.rows.count == 10)
        pipeline.cancel()  // returns once the reader's thread has ended
        var after = 0
        while let batch = pipeline.next() { after += batch.rows.count }
        #expect(after < 19_990)
    }
}
