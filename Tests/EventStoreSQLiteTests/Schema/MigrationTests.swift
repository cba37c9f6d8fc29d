import Foundation
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

struct MigrationTests {
    @Test func aNewDatabaseGetsEveryMigrationInOrderEachRecorded() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.schemaVersion == SQLiteEventStore.latestSchemaVersion)
        let connection = try SQLiteConnection(path: database.path, create: false)
        let statement = try connection.prepare("SELECT version, name FROM schema_migrations ORDER BY rowid")
        var recorded: [String] = []
        while try statement.step() { recorded.append("\(statement.int64(0)) \(statement.text(1) ?? "")") }
        #expect(recorded == EmbeddedSQL.migrations.map { "\($0.migrationVersion ?? 0) \($0.stem)" })
        for view in ["nav_in", "nav_out", "ref_back_out", "event_field"] {
            #expect(
                try connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'view' AND name = '\(view)'")
                    == 1)
        }
    }

    @Test func anOlderDatabaseGetsOnlyThePendingMigrations() throws {
        let database = TemporaryDatabase()
        do {
            let connection = try SQLiteConnection(path: database.path, create: true)
            try SchemaMigrator(migrations: Array(EmbeddedSQL.migrations.prefix(2))).migrate(connection)
            #expect(try connection.scalarInt("PRAGMA user_version") == 2)
        }
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.schemaVersion == SQLiteEventStore.latestSchemaVersion)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(
            try connection.scalarInt("SELECT count(*) FROM schema_migrations") == Int64(EmbeddedSQL.migrations.count))
    }

    @Test func aDatabaseWithANewerSchemaIsRefusedAndLeftUntouched() throws {
        let database = TemporaryDatabase()
        do {
            _ = try SQLiteEventStore(path: database.path)
            let connection = try SQLiteConnection(path: database.path, create: false)
            try connection.execute("PRAGMA user_version = \(SQLiteEventStore.latestSchemaVersion + 1)")
        }
        let before = TemporaryDatabase.bytes(database.path)
        let error = #expect(throws: StoreError.self) { try SQLiteEventStore(path: database.path) }
        #expect(error?.kind == .newerSchema)
        #expect(error?.message.contains(database.path) == true)
        #expect(error?.message.contains("newer alstats") == true)
        #expect(TemporaryDatabase.bytes(database.path) == before)
    }

    @Test func reopeningAnUpToDateDatabaseAppliesNothing() throws {
        let database = TemporaryDatabase()
        _ = try SQLiteEventStore(path: database.path)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try SchemaMigrator().migrate(connection).isEmpty)
    }
}

struct EventColumnsTests {
    @Test func everyCatalogueFieldBindsToItsOwnColumn() {
        for (offset, entry) in EventColumns.fields.enumerated() {
            #expect(EventColumns.bindIndex(of: entry.field) == Int32(offset + 4), "\(entry.field)")
        }
        for other in ["", "refx", "Ref", "sourceHost", "extras/ref", "successful"] {
            #expect(EventColumns.bindIndex(of: other) == nil)
        }
        #expect(EventColumns.successIndex == EventColumns.bindIndex(of: "success"))
    }
}
