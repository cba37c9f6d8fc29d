import EventIngest
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// When a non-strict ingest commits: every `batchSize` events, and once its transaction is
/// `commitInterval` old, whichever comes first (so a killed ingest loses little, on a slow machine too).
struct IngestCommitTests {
    /// A clock that moves one second forward each time it is read.
    final class SteppingClock: EventClock {
        private let clock = ManualEventClock(milliseconds: 0)
        func nowMilliseconds() -> Int64 {
            clock.advance(by: 1_000)
            return clock.nowMilliseconds()
        }
    }

    /// Ingests 70,000 lines and counts, from another connection, the events committed when the first
    /// progress report comes (after 65,536 lines).
    static func committedAtFirstProgress(_ options: IngestOptions) throws -> Int64 {
        let database = TemporaryDatabase()
        let file = database.file("events.ndjson")
        try sampleEvents(70_000).map(NDJSONCodec.line(for:)).joined(separator: "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        var committed: Int64?
        let firstProgress: (IngestSummary) -> Void = { _ in
            guard committed == nil else { return }
            committed = try? SQLiteConnection(path: database.path, create: false)
                .scalarInt("SELECT count(*) FROM events")
        }
        let summary = try store.ingest(
            [IngestInput(path: file)], options: options, onInvalidLine: { _ in }, progress: firstProgress)
        #expect(summary.stored == 70_000)
        #expect(try store.count() == 70_000)
        return try #require(committed)
    }

    @Test func aTransactionOlderThanTheCommitIntervalIsCommitted() throws {
        let options = IngestOptions(batchSize: 1_000_000, commitInterval: .seconds(2), clock: SteppingClock())
        #expect(try Self.committedAtFirstProgress(options) > 0)
    }

    @Test func aYoungSmallTransactionStaysOpen() throws {
        let options = IngestOptions(
            batchSize: 1_000_000, commitInterval: .seconds(2), clock: ManualEventClock(milliseconds: 0))
        #expect(try Self.committedAtFirstProgress(options) == 0)
    }

    @Test func aTransactionOfBatchSizeEventsIsCommitted() throws {
        let options = IngestOptions(
            batchSize: 10_000, commitInterval: .seconds(3_600), clock: ManualEventClock(milliseconds: 0))
        #expect(try Self.committedAtFirstProgress(options) >= 60_000)
    }
}
