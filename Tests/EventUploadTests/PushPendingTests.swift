import EventStoreSQLite
import Foundation
import MeasurementEvents
import Synchronization
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

/// The events a push has left (`status.pending`, the progress `alstats push` prints) after every receipt: the source
/// subtracts the events of the batches it finished instead of counting the rows again, and counts again when
/// another connection has changed the database.
struct PushPendingTests {
    static func events(_ count: Int, from first: Int) -> [MeasurementEvent] {
        (first..<first + count).map {
            MeasurementEvent(
                id: EventID("pending-\($0)"), name: "al_nav_out", fields: ["index": String($0)],
                timestamp: 1_763_683_200_000 + Int64($0))
        }
    }

    /// A pusher of the database at `path`, one request in flight, to a collector that accepts everything.
    static func pusher(_ path: String, _ transport: CapturingTransport) throws -> EventPusher {
        try EventPusher(
            source: try StoreEventLines(path: path), collector: URL(string: "http://127.0.0.1:9/v1/events")!,
            writeKey: "wk", policy: UploadPolicy(giveUpAfter: .seconds(60)), batchesInFlight: 1,
            transport: transport, clock: ManualUploadClock(), random: FixedRandom(unit: 0.5))
    }

    @Test func pendingFallsByEachAnsweredBatchToZero() async throws {
        let folder = TemporaryFolder()
        let path = folder.file("pending.sqlite")
        let store = try SQLiteEventStore(path: path)
        #expect(try store.write(Self.events(1_300, from: 0)) == 1_300)
        // Rowid gaps: the events are counted, not the keys.
        try PushLinesTests.insert(["DELETE FROM events WHERE rowid BETWEEN 100 AND 165"], into: store)
        let transport = CapturingTransport()
        let seen = StateLock<[Int]>([])
        let pusher = try Self.pusher(path, transport)
        #expect(pusher.status.pending == 1_234)
        try await pusher.push { status in seen.withLock { $0.append(status.pending) } }
        let sizes = transport.bodies.map(\.count)
        #expect(sizes == [500, 500, 234])
        #expect(seen.withLock { $0 } == [734, 234, 0])
        #expect(pusher.status.pending == 0)
    }

    @Test func aDeleteByAnotherConnectionMidPushIsCountedAgain() async throws {
        let folder = TemporaryFolder()
        let path = folder.file("pending-delete.sqlite")
        let store = try SQLiteEventStore(path: path)
        #expect(try store.write(Self.events(1_500, from: 0)) == 1_500)
        let transport = CapturingTransport()
        let seen = StateLock<[Int]>([])
        let pusher = try Self.pusher(path, transport)
        #expect(pusher.status.pending == 1_500)
        try await pusher.push { status in
            let first = seen.withLock { seen in
                seen.append(status.pending)
                return seen.count == 1
            }
            // After the first receipt, another connection deletes 40 events not yet sent and adds 7.
            if first {
                try? PushLinesTests.insert(["DELETE FROM events WHERE rowid BETWEEN 1201 AND 1240"], into: store)
                _ = try? store.write(Self.events(7, from: 10_000))
            }
        }
        // The third batch (1001-1500) was read before the delete, while the second was in flight: it is sent whole,
        // and the source counts again rather than take its 500 events off the 467 counted after the delete.
        #expect(seen.withLock { $0 } == [1_000, 467, 7, 0])
        #expect(transport.bodies.map(\.count) == [500, 500, 500, 7])
        #expect(pusher.status.pending == 0)
    }
}
