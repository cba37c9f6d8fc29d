import EmbeddedSQLFiles
import Foundation

/// Applies embedded `NNNN_verb_object.sql` migrations in order, each in its own transaction, recording it in
/// the database's ledger: SQLiteEventStore's `Migrations/` in `schema_migrations` and `PRAGMA user_version`, another
/// module's schema that shares the file (the uploader's `Migrations/upload/`) in a table of its own.
///
/// A schema may have handed some of its migrations over to another (``HandOver``): SQLiteEventStore's 0010, 0012 and
/// 0015 made the tables the uploader owns now. On a file where the other schema's ledger exists, that schema
/// made or adopted those tables itself, so the handed-over migrations are recorded without being run.
package struct SchemaMigrator {
    /// Where a database records the migrations of one schema.
    package enum Ledger: Sendable, Hashable {
        /// `PRAGMA user_version`, each migration also a row of `schema_migrations` (SQLiteEventStore's schema).
        case userVersion
        /// A table of its own, `(version, name, applied_at)` as `schema_migrations`, created when missing; the
        /// version is its largest `version` (0 without the table).
        case table(String)
    }

    /// Migrations of this schema whose tables another schema of the same file owns now.
    package struct HandOver: Sendable, Hashable {
        /// The versions handed over.
        package var versions: Set<Int>
        /// The ledger table of the schema that owns their tables: when the file has it, they are not run.
        package var ledger: String

        /// Hands `versions` over to the schema recorded in the table `ledger`.
        package init(versions: Set<Int>, ledger: String) {
            self.versions = versions
            self.ledger = ledger
        }
    }

    /// The migrations this binary knows, in order.
    package let migrations: [EmbeddedSQLFile]
    /// Where the versions applied are recorded.
    package let ledger: Ledger
    /// The migrations recorded but not run on a file where another schema owns their tables.
    package let handOver: HandOver?

    /// A migrator of `migrations` recording them in `ledger`, `handOver`'s skipped where its ledger exists.
    package init(migrations: [EmbeddedSQLFile], ledger: Ledger = .userVersion, handOver: HandOver? = nil) {
        self.migrations = migrations.sorted { $0.name < $1.name }
        self.ledger = ledger
        self.handOver = handOver
    }

    /// The version the latest migration brings a database to.
    package var latestVersion: Int { migrations.last?.migrationVersion ?? 0 }

    /// The schema version of the database: its `PRAGMA user_version`, or the largest version of the ledger table.
    package func currentVersion(of connection: SQLiteConnection) throws(SQLiteError) -> Int {
        switch ledger {
        case .userVersion:
            return Int(try connection.scalarInt("PRAGMA user_version"))
        case .table(let table):
            guard try connection.hasTable(table) else { return 0 }
            return Int(try connection.scalarInt("SELECT ifnull(max(version), 0) FROM \(table)"))
        }
    }

    /// Refuses a database whose schema is newer than this binary: by its `user_version`, or by a migration
    /// recorded in `schema_migrations` that this binary does not know (a newer alstats that recorded its
    /// migration but did not get to set `user_version`, or a hand-edited file).
    package func checkNotNewer(_ connection: SQLiteConnection) throws(SQLiteError) {
        var current = try currentVersion(of: connection)
        if ledger == .userVersion, try connection.hasTable("schema_migrations") {
            let newest = try connection.scalarInt("SELECT ifnull(max(version), 0) FROM schema_migrations")
            current = max(current, Int(newest))
        }
        guard current <= latestVersion else {
            let schema = if case .table(let table) = ledger { "\(table) version" } else { "schema version" }
            throw SQLiteError(
                .newerSchema, path: connection.path,
                "the database \(connection.path) has \(schema) \(current), but this alstats knows versions up to "
                    + "\(latestVersion): use a newer alstats with this database; it was left untouched")
        }
    }

    /// Whether migrations are pending.
    package func hasPending(_ connection: SQLiteConnection) throws(SQLiteError) -> Bool {
        try currentVersion(of: connection) < latestVersion
    }

    /// Applies every pending migration, each in its own transaction. Returns the versions applied.
    @discardableResult
    package func migrate(_ connection: SQLiteConnection) throws(SQLiteError) -> [Int] {
        try checkNotNewer(connection)
        // Up to date: nothing to write, so no write transaction, which would wait for (and fail behind) another
        // connection's. A version read now cannot fall back; one that rises meanwhile is read again below.
        guard try hasPending(connection) else { return [] }
        var applied: [Int] = []
        for migration in migrations {
            guard let version = migration.migrationVersion else { continue }
            // Read the version inside the write transaction, so two processes migrating at once apply each once.
            try connection.execute("BEGIN IMMEDIATE", doing: "starting migration \(migration.stem)")
            do throws(SQLiteError) {
                if case .table(let table) = ledger {
                    try connection.execute(
                        "CREATE TABLE IF NOT EXISTS \(table) (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                            + "applied_at TEXT NOT NULL)")
                }
                let current = try currentVersion(of: connection)
                if version <= current {
                    try connection.execute("COMMIT")
                    continue
                }
                if try !isHandedOver(version, connection) {
                    try connection.execute(migration.text, doing: "applying migration \(migration.stem)")
                }
                let table = if case .table(let table) = ledger { table } else { "schema_migrations" }
                let record = try connection.prepare(
                    "INSERT INTO \(table) (version, name, applied_at) VALUES (?1, ?2, ?3)")
                record.bind(1, Int64(version))
                record.bind(2, migration.stem)
                record.bind(3, SchemaMigrator.now())
                try record.run()
                if ledger == .userVersion { try connection.execute("PRAGMA user_version = \(version)") }
                try connection.execute("COMMIT", doing: "committing migration \(migration.stem)")
                applied.append(version)
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
        return applied
    }

    /// Whether `version` was handed over to a schema whose ledger `connection`'s file has.
    private func isHandedOver(_ version: Int, _ connection: SQLiteConnection) throws(SQLiteError) -> Bool {
        guard let handOver, handOver.versions.contains(version) else { return false }
        return try connection.hasTable(handOver.ledger)
    }

    private static func now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date())
    }
}
