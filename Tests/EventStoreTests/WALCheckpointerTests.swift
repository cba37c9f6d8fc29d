import Foundation
import MeasurementEvents
import Testing

@testable import EventStore
@testable import EventStoreInterface
@testable import SQLiteSupport

/// The WAL is copied into the database file on a thread of its own (WALCheckpointer), and still starts over
/// from its beginning under a writer that never pauses, so that it does not grow without end.
@Suite struct WALCheckpointerTests {
    /// 4 and 40 frames of 16 KiB instead of 1,000 and 10,000, so that a few hundred small commits cross both.
    static let thresholds = WALCheckpointer.Thresholds(background: 4, backstop: 40)

    static var options: EventStore.Options {
        var options = EventStore.Options()
        options.walCheckpoints = thresholds
        return options
    }

    static func walBytes(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    }

    @Test func theWALIsCopiedOnAnotherThreadAndStartsOverAtTheBackstop() throws {
        let database = TemporaryDatabase()
        let store = try EventStore(path: database.path, options: Self.options)
        var largestWAL = 0
        for batch in 0..<300 {
            try store.write(
                sampleEvents(40, start: 1_763_683_200_000 + Int64(batch) * 10_000_000, idPrefix: "b\(batch)"))
            largestWAL = max(largestWAL, Self.walBytes(database.path))
        }
        // Without the backstop the WAL holds every commit's frames: 300 commits of a dozen or more, over 50 MiB.
        // With it, the backstop and the commit that crossed it (60-odd frames here).
        let frameBytes = 16_384 + 24
        #expect(largestWAL <= 2 * Int(Self.thresholds.backstop) * frameBytes, "WAL reached \(largestWAL) bytes")
        let checkpointer = try #require(store.withConnection { $0.connection.checkpointer })
        let deadline = Date().addingTimeInterval(10)
        while checkpointer.backgroundCheckpoints == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(checkpointer.backgroundCheckpoints > 0)
        #expect(try store.count() == 300 * 40)
    }

    @Test func closingStopsTheThreadAndLeavesTheWholeDatabaseInItsFile() throws {
        let database = TemporaryDatabase()
        do {
            let store = try EventStore(path: database.path, options: Self.options)
            for batch in 0..<50 {
                try store.write(
                    sampleEvents(40, start: 1_763_683_200_000 + Int64(batch) * 10_000_000, idPrefix: "c\(batch)"))
            }
        }
        // The last connection closed checkpointed everything and removed the WAL: the file alone is whole.
        #expect(!FileManager.default.fileExists(atPath: database.path + "-wal"))
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarText("PRAGMA quick_check") == "ok")
        #expect(try connection.scalarInt("SELECT count(*) FROM events") == 50 * 40)
    }
}
