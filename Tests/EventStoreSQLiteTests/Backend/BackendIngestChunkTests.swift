import EventIngest
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite

/// The generic ingest's writes through a backend seen only as ``EventBackend``: chunks of the backend's limit
/// (``EventBackend/overlappedChunkLimit``) or of `--batch-size` when smaller (a write is due at the end of the
/// reader's hand-over of 1,024 lines that reaches it), every event stored.
struct BackendIngestChunkTests {
    /// An SQLite store seen only through ``EventBackend``, which records how many events each write held.
    final class RecordingBackend: EventBackend {
        let store: any EventBackend
        let writes = Locked<[Int]>([])
        init(path: String) throws { store = try SQLiteEventStore(path: path) }

        var location: String { store.location }
        var schemaVersion: Int { get async throws(StoreError) { try await store.schemaVersion } }
        func writeBatches(_ batches: [[MeasurementEvent]], losses: [DropReason: Int]) async throws(StoreError)
            -> [Int]
        {
            writes.withLock { $0.append(batches.map(\.count).reduce(0, +)) }
            return try await store.writeBatches(batches, losses: losses)
        }
        func write(_ events: [MeasurementEvent]) async throws(StoreError) -> Int {
            try await writeBatches([events], losses: [:]).reduce(0, +)
        }
        func recordLosses(_ losses: [DropReason: Int]) async throws(StoreError) {
            try await store.recordLosses(losses)
        }
        func completeness() async throws(StoreError) -> [String: [String: Int]] { try await store.completeness() }
        func count() async throws(StoreError) -> Int { try await store.count() }
        func rebuildRollups() async throws(StoreError) { try await store.rebuildRollups() }
        func forEachEvent(since: Int64, until: Int64, _ body: (MeasurementEvent) throws -> Void) async throws {
            try await store.forEachEvent(since: since, until: until, body)
        }
        func upkeep() async throws(StoreError) -> UpkeepOutcome { try await store.upkeep() }
        func close() async throws(StoreError) { try await store.close() }
    }

    @Test(arguments: [(100_000, [8_192, 8_192, 3_616]), (4_096, [4_096, 4_096, 4_096, 4_096, 3_616])])
    func writesAreChunksOfTheLimitOrTheBatchSizeAndStoreEverything(batchSize: Int, writes: [Int]) async throws {
        let database = TemporaryDatabase()
        let file = database.file("in.ndjson")
        let count = 20_000
        let lines = sampleEvents(count).map(NDJSONCodec.line(for:))
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let backend = try RecordingBackend(path: database.path)
        // No write due by time: a slow (debug) write must not make the next chunk due early.
        let options = IngestOptions(batchSize: batchSize, commitInterval: .seconds(3_600))
        let summary = try await backend.ingestNDJSON(
            [IngestInput(path: file)], options: options, onInvalidLine: { _ in })
        #expect(backend.writes.withLock { $0 } == writes)
        #expect(summary.stored == count && summary.lines == count)
        #expect(try await backend.count() == count)
        try await backend.close()
    }
}
