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

    /// Rows that signal `sealed` the first time they are sealed, and say whether they were.
    struct SealedRows: IngestRows {
        let sealed: DispatchSemaphore
        var names: [String] = []
        var isSealed = false
        var count: Int { names.count }
        mutating func append(_ line: FlatLine) -> Bool { false }
        mutating func append(_ event: MeasurementEvent) { names.append(event.name) }
        mutating func seal() {
            guard !isSealed else { return }
            isSealed = true
            sealed.signal()
        }
    }

    static func file(_ lines: [String], in database: TemporaryDatabase) throws -> IngestInput {
        let path = database.file("in.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return IngestInput(path: path)
    }

    static let lines = [
        #"{"name":"al_nav_in","ts":1763683200000,"fields":{"ref":"a"}}"#,
        "",
        #"{"name":"al_nav_out","ts":"2025-11-21T00:00:00Z","fields":{"n":1.5}}"#,
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
        // The fraction of the second line is not the flat shape: it is decoded (and flattened).
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

    /// While the queue is full (three batches) and nothing is taken, the reader seals the batch it holds and then the
    /// queued ones, the head last, and waits; the batches still arrive in order.
    @Test func aFullQueueHasTheReaderSealItsBatchAndTheQueuedOnes() throws {
        let database = TemporaryDatabase()
        let lines = (0..<40).map { #"{"name":"e\#($0)","ts":1763683200000}"# }
        let input = try Self.file(lines, in: database)
        let sealed = DispatchSemaphore(value: 0)
        let pipeline = IngestPipeline(inputs: [input], codec: NDJSONCodec(), batchSize: 4) {
            SealedRows(sealed: sealed)
        }
        pipeline.start()
        for _ in 0..<4 { #expect(sealed.wait(timeout: .now() + 60) == .success, "the reader seals instead of waiting") }
        var batches: [SealedRows] = []
        while let batch = pipeline.next() { batches.append(batch.rows) }
        pipeline.join()
        #expect(batches.map(\.isSealed).prefix(4) == [true, true, true, true])
        #expect(batches.flatMap(\.names) == (0..<40).map { "e\($0)" })
    }

    /// Batches sent while the queue has room go unsealed: the reader does not seal ahead of a consumer that may be
    /// idle, which would then wait for the batch being sealed.
    @Test func batchesSentWhileThereIsRoomAreLeftToTheConsumer() throws {
        let database = TemporaryDatabase()
        let input = try Self.file((0..<10).map { #"{"name":"e\#($0)","ts":1763683200000}"# }, in: database)
        let sealed = DispatchSemaphore(value: 0)
        let pipeline = IngestPipeline(inputs: [input], codec: NDJSONCodec(), batchSize: 4) {
            SealedRows(sealed: sealed)
        }
        pipeline.start()
        pipeline.join()  // its three batches (4, 4 and the last 2 lines) fit in the queue: the reader has ended
        var batches: [SealedRows] = []
        while let batch = pipeline.next() { batches.append(batch.rows) }
        #expect(batches.map(\.isSealed) == [false, false, false])
        #expect(batches.flatMap(\.names) == (0..<10).map { "e\($0)" })
    }

    /// An async consumer gets every batch once and in order while the reader seals queued ones beside it.
    @Test func anAsyncConsumerGetsTheBatchesInOrder() async throws {
        let database = TemporaryDatabase()
        let lines = (0..<4_000).map { #"{"name":"e\#($0)","ts":1763683200000}"# }
        let input = try Self.file(lines, in: database)
        let pipeline = IngestPipeline(inputs: [input], codec: NDJSONCodec(), batchSize: 3) {
            SealedRows(sealed: DispatchSemaphore(value: 0))
        }
        pipeline.start()
        var names: [String] = []
        while var batch = await pipeline.nextBatch() {
            batch.rows.seal()
            names += batch.rows.names
        }
        pipeline.join()
        #expect(names == (0..<4_000).map { "e\($0)" })
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
