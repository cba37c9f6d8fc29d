import Foundation
import MeasurementEvents
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// The writer counts a rollup group it met before by the row's rowid (``RollupRows``): these tests change the
/// rollup tables under it in the ways that give a rowid to another group, and check that every count still
/// equals a rebuild from the events.
@Suite struct RollupRowsTests {
    static let time: Int64 = 1_763_683_200_000

    static func events(_ names: [String]) -> [MeasurementEvent] {
        names.map { MeasurementEvent(name: $0, fields: ["type": "app", "success": "1"], timestamp: time) }
    }

    /// Stores one event of each name (with its own id) in one batch.
    static func write(_ names: [String], to store: SQLiteEventStore) throws {
        #expect(try store.writeBatches([events(names)]) == [names.count])
    }

    /// The three rollup tables, as rows sorted.
    static func rollups(_ path: String) throws -> [String] {
        try ["event_rollup", "event_rollup_day", "event_rollup_series"].map {
            try EncodedEventsTests.dump($0, in: path)
        }
    }

    /// The rollups as written, and as a rebuild from the events gives them.
    static func writtenAndRebuilt(_ path: String) throws -> (written: [String], rebuilt: [String]) {
        let written = try rollups(path)
        try SQLiteEventStore(path: path).rebuildRollups()
        return (written, try rollups(path))
    }

    /// Another connection's rebuild numbers the rows again in its own order (here the other way round); the
    /// writer's next transaction sees that connection's commit and counts by group again.
    @Test func aRebuildByAnotherConnectionBetweenCommitsKeepsEveryCount() throws {
        let database = TemporaryDatabase()
        let writer = try SQLiteEventStore(path: database.path)
        try Self.write(["zeta"], to: writer)
        try Self.write(["alpha"], to: writer)
        try SQLiteEventStore(path: database.path).rebuildRollups()
        try Self.write(["zeta", "zeta", "alpha"], to: writer)
        let (written, rebuilt) = try Self.writtenAndRebuilt(database.path)
        #expect(written == rebuilt)
        #expect(written[0].components(separatedBy: "\n").count == 2)
    }

    /// Two groups whose names (or any dimension) are the same text in two Unicode normalisations (`café` as U+00E9
    /// and as `e` + U+0301) are two groups, as the SQL over the stored events (a rebuild, a query) counts them:
    /// `String` equality, which is canonical equivalence, would count both under the first one's bytes.
    @Test func groupsThatDifferOnlyInUnicodeNormalisationStayApart() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        try Self.write(["caf\u{E9}", "cafe\u{301}", "caf\u{E9}"], to: store)
        var events = Self.events(["open", "open"])
        events[0].fields["ref"] = "caf\u{E9}"
        events[1].fields["ref"] = "cafe\u{301}"
        #expect(try store.writeBatches([events]) == [2])
        let (written, rebuilt) = try Self.writtenAndRebuilt(database.path)
        #expect(written == rebuilt)
        #expect(written[0].components(separatedBy: "\n").count == 4, "\(written[0])")
    }

    /// A rebuild on the writer's own connection (which `PRAGMA data_version` does not show) forgets the rowids.
    @Test func aRebuildOnTheWritersOwnConnectionKeepsEveryCount() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        try Self.write(["zeta"], to: store)
        try Self.write(["alpha"], to: store)
        try store.rebuildRollups()
        try Self.write(["zeta", "zeta", "alpha"], to: store)
        let (written, rebuilt) = try Self.writtenAndRebuilt(database.path)
        #expect(written == rebuilt)
    }

    /// A commit that fails after its rollup rows were inserted rolls them back; their rowids go to the next new
    /// groups, and the groups of the failed commit are counted by group again when they come back.
    @Test func aFailedCommitForgetsTheRollupRowsItInserted() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        try Self.write(["keep"], to: store)
        // The series rows are upserted after every 15-minute and day row of a commit: failing there leaves the
        // commit's new rows inserted, then rolled back.
        let connection = try SQLiteConnection(path: database.path, create: false)
        try connection.execute(
            "CREATE TRIGGER fail_series BEFORE INSERT ON event_rollup_series WHEN NEW.name = 'fail' "
                + "BEGIN SELECT RAISE(ABORT, 'injected'); END")
        // The trigger's commit is another connection's: a transaction first, so that the failing one is the
        // writer's own rollback and nothing else.
        try Self.write(["keep"], to: store)
        let back = (0..<5).map { "back\($0)" }
        let new = (0..<6).map { "new\($0)" }
        #expect(throws: StoreError.self) { try store.writeBatches([Self.events(back + ["fail"])]) }
        // The rows of these six groups take the six rowids the failed commit gave and lost.
        try Self.write(new, to: store)
        try Self.write(back + new, to: store)
        try connection.execute("DROP TRIGGER fail_series")
        let (written, rebuilt) = try Self.writtenAndRebuilt(database.path)
        #expect(written == rebuilt)
        #expect(try store.count() == 2 + 6 + 5 + 6)
    }
}
