import EmbeddedSQLFiles
import Foundation
import TestSupport
import Testing

@testable import SQLiteSupport

/// The WAL is copied into the database file on a thread of its own (WALCheckpointer), and still starts over
/// from its beginning under a writer that never pauses, so that it does not grow without end.
@Suite struct WALCheckpointerTests {
    /// 4 and 40 frames of 16 KiB instead of 1,000 and 10,000, so that a few hundred small commits cross both.
    static let thresholds = WALCheckpointer.Thresholds(background: 4, backstop: 40)

    /// A database of one table, opened as every module opens its file, with the lowered thresholds.
    static func open(_ path: String) throws -> SQLiteConnection {
        let table = EmbeddedSQLFile(
            name: "0001_create_rows.sql", text: "CREATE TABLE rows (id INTEGER PRIMARY KEY, payload BLOB)")
        let migrator = SchemaMigrator(migrations: [table], ledger: .table("rows_migrations"))
        return try SQLiteConnection.openChecked(
            path: path, settings: .init(walCheckpoints: thresholds), migrator: migrator)
    }

    /// One commit of 40 rows of 5,000 random bytes: a dozen or more frames, as a commit of the store's events.
    static func commit(on connection: SQLiteConnection) throws {
        try connection.immediateTransaction(doing: "writing rows") { () throws(SQLiteError) in
            try connection.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) "
                    + "INSERT INTO rows (payload) SELECT randomblob(5000) FROM n", doing: "writing rows")
        }
    }

    static func walBytes(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    }

    @Test func theWALIsCopiedOnAnotherThreadAndStartsOverAtTheBackstop() throws {
        let database = TemporaryDatabase()
        let connection = try Self.open(database.path)
        var largestWAL = 0
        for _ in 0..<300 {
            try Self.commit(on: connection)
            largestWAL = max(largestWAL, Self.walBytes(database.path))
        }
        // Without the backstop the WAL holds every commit's frames: 300 commits of a dozen or more, over 50 MiB.
        // With it, the backstop and the commit that crossed it.
        let frameBytes = 16_384 + 24
        #expect(largestWAL <= 2 * Int(Self.thresholds.backstop) * frameBytes, "WAL reached \(largestWAL) bytes")
        let checkpointer = try #require(connection.checkpointer)
        let deadline = Date().addingTimeInterval(10)
        while checkpointer.backgroundCheckpoints == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(checkpointer.backgroundCheckpoints > 0)
        #expect(try connection.scalarInt("SELECT count(*) FROM rows") == 300 * 40)
    }

    @Test func closingStopsTheThreadAndLeavesTheWholeDatabaseInItsFile() throws {
        let database = TemporaryDatabase()
        do {
            let connection = try Self.open(database.path)
            for _ in 0..<50 { try Self.commit(on: connection) }
        }
        // The last connection closed checkpointed everything and removed the WAL: the file alone is whole.
        #expect(!FileManager.default.fileExists(atPath: database.path + "-wal"))
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarText("PRAGMA quick_check") == "ok")
        #expect(try connection.scalarInt("SELECT count(*) FROM rows") == 50 * 40)
    }
}
