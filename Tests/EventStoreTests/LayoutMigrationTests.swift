import Foundation
import Testing

@testable import EventStore

/// Migration 0006 on a database made by the alstats of schema 5 (Fixtures/schema-v5.sqlite: `alstats demo
/// --events 300 --seed 3` and three ingested lines with a text id, no id and extra fields).
struct LayoutMigrationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    /// Every row of every view and rollup table, as text, in a stable order.
    static func contents(_ path: String) throws -> [String] {
        let connection = try SQLiteConnection(path: path, create: false)
        var rows: [String] = []
        let sources = [
            "nav_in", "nav_out", "ref_back_out", "event_field", "event_rollup", "event_rollup_day",
            "event_rollup_series", "completeness",
        ]
        for source in sources {
            let statement = try connection.prepare("SELECT * FROM \(source) ORDER BY 1, 2, 3")
            while try statement.step() {
                let values = (0..<statement.columnCount).map { statement.text($0) ?? "NULL" }
                rows.append(source + "|" + values.joined(separator: "|"))
            }
        }
        return rows.sorted()
    }

    /// A copy of the schema-5 fixture in a fresh folder.
    static func copyOfFixture() throws -> TemporaryDatabase {
        let database = TemporaryDatabase()
        try FileManager.default.copyItem(
            atPath: fixtures.appendingPathComponent("schema-v5.sqlite").path, toPath: database.path)
        return database
    }

    @Test func aSchema5DatabaseMigratesWithEveryEventViewRowAndRollupIntact() throws {
        let database = try Self.copyOfFixture()
        let before = try Self.contents(database.path)
        #expect(before.count > 2_000)
        let store = try EventStore(path: database.path)
        #expect(try store.schemaVersion == EventStore.latestSchemaVersion)
        #expect(try store.count() == 303)
        #expect(try Self.contents(database.path) == before)
        var exported = Data()
        try store.export { exported.append(contentsOf: $0) }
        let expected = try Data(contentsOf: Self.fixtures.appendingPathComponent("schema-v5.ndjson"))
        #expect(exported == expected)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarText("PRAGMA integrity_check") == "ok")
        let table = try connection.scalarText("SELECT sql FROM sqlite_schema WHERE name = 'events'") ?? ""
        #expect(!table.uppercased().contains("WITHOUT ROWID"))
    }

    @Test func aMigratedDatabaseStillStoresEachIdOnceAndRebuildsTheSameRollups() throws {
        let database = try Self.copyOfFixture()
        let store = try EventStore(path: database.path)
        let migrated = try Self.contents(database.path)
        let file = Self.fixtures.appendingPathComponent("schema-v5.ndjson").path
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in Issue.record("invalid") })
        #expect(summary.stored == 0)
        #expect(summary.duplicates == 303)
        #expect(try store.count() == 303)
        try store.rebuildRollups()
        #expect(try Self.contents(database.path) == migrated)
    }
}
