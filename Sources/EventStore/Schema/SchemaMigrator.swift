import EventStoreInterface
import Foundation
import SQLiteSupport

/// Applies the embedded `Migrations/NNNN_verb_object.sql` in order, each in its own transaction,
/// recording it in `schema_migrations` and `PRAGMA user_version`.
struct SchemaMigrator {
    /// The migrations this binary knows, in order.
    let migrations: [EmbeddedSQLFile]

    init(migrations: [EmbeddedSQLFile] = EmbeddedSQL.migrations) {
        self.migrations = migrations.sorted { $0.name < $1.name }
    }

    /// The version the latest migration brings a database to.
    var latestVersion: Int { migrations.last?.migrationVersion ?? 0 }

    /// The schema version of the database (its `PRAGMA user_version`).
    func currentVersion(of connection: SQLiteConnection) throws(StoreError) -> Int {
        Int(try connection.scalarInt("PRAGMA user_version"))
    }

    /// Refuses a database whose schema is newer than this binary: by its `user_version`, or by a migration
    /// recorded in `schema_migrations` that this binary does not know (a newer alstats that recorded its
    /// migration but did not get to set `user_version`, or a hand-edited file).
    func checkNotNewer(_ connection: SQLiteConnection) throws(StoreError) {
        var current = try currentVersion(of: connection)
        let recorded = try connection.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        if recorded > 0 {
            let newest = try connection.scalarInt("SELECT ifnull(max(version), 0) FROM schema_migrations")
            current = max(current, Int(newest))
        }
        guard current <= latestVersion else {
            throw StoreError(
                .newerSchema, path: connection.path,
                "the database \(connection.path) has schema version \(current), but this alstats knows versions up to "
                    + "\(latestVersion): use a newer alstats with this database; it was left untouched")
        }
    }

    /// Whether migrations are pending.
    func hasPending(_ connection: SQLiteConnection) throws(StoreError) -> Bool {
        try currentVersion(of: connection) < latestVersion
    }

    /// Applies every pending migration, each in its own transaction. Returns the versions applied.
    @discardableResult
    func migrate(_ connection: SQLiteConnection) throws(StoreError) -> [Int] {
        try checkNotNewer(connection)
        var applied: [Int] = []
        for migration in migrations {
            guard let version = migration.migrationVersion else { continue }
            // Read the version inside the write transaction, so two processes migrating at once apply each once.
            try connection.execute("BEGIN IMMEDIATE", doing: "starting migration \(migration.stem)")
            do throws(StoreError) {
                let current = try currentVersion(of: connection)
                if version <= current {
                    try connection.execute("COMMIT")
                    continue
                }
                try connection.execute(migration.text, doing: "applying migration \(migration.stem)")
                let record = try connection.prepare(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)")
                record.bind(1, Int64(version))
                record.bind(2, migration.stem)
                record.bind(3, SchemaMigrator.now())
                try record.run()
                try connection.execute("PRAGMA user_version = \(version)")
                try connection.execute("COMMIT", doing: "committing migration \(migration.stem)")
                applied.append(version)
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
        return applied
    }

    private static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }
}
