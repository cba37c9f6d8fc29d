import EventIngest
import Foundation
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// Migration 0011 on a database made by the alstats of schema 10 (Fixtures/schema-v10.sqlite, made by alstats
/// at 0534082: `alstats demo --events 400 --seed 5 --in-process`, then ingested lines with text ids, no id, a
/// UUID id sent twice and long values; Fixtures/schema-v10.ndjson is that alstats' export of it).
struct IDIndexMigrationTests {
    /// Every row of every view, rollup, link rollup and completeness table, as text, in a stable order.
    static func contents(_ path: String) throws -> [String] {
        try MigrationFixture.contents(
            path,
            of: MigrationFixture.eventTables + [
                "links", "link_rollup", "link_rollup_day", "link_visitor_day", "link_visitor_count",
            ])
    }

    @Test func aSchema10DatabaseMigratesWithEveryEventRollupAndLinkRollupIntact() throws {
        let database = try MigrationFixture.copy("schema-v10.sqlite")
        let before = try Self.contents(database.path)
        #expect(before.count > 1_000)
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.schemaVersion == SQLiteEventStore.latestSchemaVersion)
        #expect(try store.count() == 406)
        #expect(try Self.contents(database.path) == before)
        var exported = Data()
        try store.export { exported.append(contentsOf: $0) }
        #expect(exported == (try Data(contentsOf: MigrationFixture.file("schema-v10.ndjson"))))
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try connection.scalarInt("SELECT count(*) FROM event_ids") == 406)
        #expect(try connection.scalarInt("SELECT count(*) FROM event_ids_recent") == 0)
        #expect(try connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'events_by_id'") == 0)
    }

    @Test func aMigratedDatabaseStillStoresEachIDOnce() throws {
        let database = try MigrationFixture.copy("schema-v10.sqlite")
        let store = try SQLiteEventStore(path: database.path)
        let migrated = try Self.contents(database.path)
        let file = MigrationFixture.file("schema-v10.ndjson").path
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in Issue.record("invalid") })
        #expect(summary.stored == 0)
        #expect(summary.duplicates == 406)
        #expect(try store.count() == 406)
        try store.rebuildRollups()
        #expect(try Self.contents(database.path) == migrated)
    }
}
