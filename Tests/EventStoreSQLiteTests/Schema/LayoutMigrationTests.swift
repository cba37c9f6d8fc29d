import EventIngest
import Foundation
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// Migration 0006 on a database made by the alstats of schema 5 (Fixtures/schema-v5.sqlite: `alstats demo
/// --events 300 --seed 3` and three ingested lines with a text id, no id and extra fields).
struct LayoutMigrationTests {
    /// A copy of the schema-5 fixture in a fresh folder.
    static func copyOfFixture() throws -> TemporaryDatabase { try MigrationFixture.copy("schema-v5.sqlite") }

    /// Every row of every view and rollup table, as text, in a stable order.
    static func contents(_ path: String) throws -> [String] { try MigrationFixture.contents(path) }

    @Test func aSchema5DatabaseMigratesWithEveryEventViewRowAndRollupIntact() throws {
        let database = try Self.copyOfFixture()
        let before = try Self.contents(database.path)
        #expect(before.count > 2_000)
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.schemaVersion == SQLiteEventStore.latestSchemaVersion)
        #expect(try store.count() == 303)
        #expect(try Self.contents(database.path) == before)
        var exported = Data()
        try store.export { exported.append(contentsOf: $0) }
        let expected = try Data(contentsOf: MigrationFixture.file("schema-v5.ndjson"))
        #expect(exported == expected)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarText("PRAGMA integrity_check") == "ok")
        let table = try connection.scalarText("SELECT sql FROM sqlite_schema WHERE name = 'events'") ?? ""
        #expect(!table.uppercased().contains("WITHOUT ROWID"))
    }

    @Test func aMigratedDatabaseStillStoresEachIdOnceAndRebuildsTheSameRollups() throws {
        let database = try Self.copyOfFixture()
        let store = try SQLiteEventStore(path: database.path)
        let migrated = try Self.contents(database.path)
        let file = MigrationFixture.file("schema-v5.ndjson").path
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in Issue.record("invalid") })
        #expect(summary.stored == 0)
        #expect(summary.duplicates == 303)
        #expect(try store.count() == 303)
        try store.rebuildRollups()
        #expect(try Self.contents(database.path) == migrated)
    }
}
