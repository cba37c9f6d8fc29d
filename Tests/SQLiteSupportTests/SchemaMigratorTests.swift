import EmbeddedSQLFiles
import Foundation
import TestSupport
import Testing

@testable import SQLiteSupport

/// A schema's migrations are applied once each, recorded in its ledger; those it handed over to another schema of
/// the same file are recorded without being run where that schema's ledger exists.
struct SchemaMigratorTests {
    static let migrations: [EmbeddedSQLFile] = [
        .init(name: "0001_create_mine.sql", text: "CREATE TABLE mine (id INTEGER PRIMARY KEY)"),
        .init(name: "0002_create_shared.sql", text: "CREATE TABLE shared (id INTEGER PRIMARY KEY)"),
    ]
    static let handOver = SchemaMigrator.HandOver(versions: [2], ledger: "other_schema_migrations")

    @Test func aHandedOverMigrationRunsWhereTheOtherSchemaIsAbsent() throws {
        let database = TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path, create: true)
        let migrator = SchemaMigrator(
            migrations: Self.migrations, ledger: .table("mine_migrations"), handOver: Self.handOver)
        #expect(try migrator.migrate(connection) == [1, 2])
        #expect(try connection.hasTable("shared"))
        #expect(try migrator.migrate(connection).isEmpty)
    }

    @Test func aHandedOverMigrationIsRecordedWithoutRunningWhereTheOtherSchemaOwnsItsTables() throws {
        let database = TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path, create: true)
        // The other schema made the table first, as it does it: a run of 0002 would fail on it.
        try connection.execute("CREATE TABLE other_schema_migrations (version INTEGER PRIMARY KEY)")
        try connection.execute("CREATE TABLE shared (id INTEGER PRIMARY KEY, kept TEXT)")
        let migrator = SchemaMigrator(
            migrations: Self.migrations, ledger: .table("mine_migrations"), handOver: Self.handOver)
        #expect(try migrator.migrate(connection) == [1, 2])
        #expect(try migrator.currentVersion(of: connection) == 2)
        #expect(try connection.scalarInt("SELECT count(*) FROM pragma_table_info('shared') WHERE name = 'kept'") == 1)
    }

    /// An up-to-date database is migrated without a write transaction: a reader (`alstats report`) opens it while
    /// another connection holds one. (Each migration's `BEGIN IMMEDIATE` failed behind it, as "locked while starting
    /// migration 0001".)
    @Test func anUpToDateDatabaseIsMigratedWithoutWaitingForAWriter() throws {
        let database = TemporaryDatabase()
        let writer = try SQLiteConnection(path: database.path, create: true)
        let migrator = SchemaMigrator(migrations: Self.migrations, ledger: .table("mine_migrations"))
        #expect(try migrator.migrate(writer) == [1, 2])
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute("INSERT INTO mine (id) VALUES (1)")
        let reader = try SQLiteConnection(path: database.path, create: false)
        #expect(try migrator.migrate(reader).isEmpty)
        try writer.execute("COMMIT")
    }
}
