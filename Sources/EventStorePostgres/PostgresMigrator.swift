import EventStoreInterface
import Foundation
import Logging
import PostgresNIO

/// Applies the embedded `Migrations/NNNN_verb_object.sql` in order, each in its own transaction under a
/// transaction-level advisory lock (so two processes starting at once apply each once, the second waiting for the
/// first), recording it in `schema_migrations`. Re-running applies nothing.
struct PostgresMigrator {
    /// The advisory lock key of migrations ("alstats" and 1).
    static let lockKey: Int64 = 0x616C_7374_6174_7301

    /// The version the latest migration brings a database to.
    static var latestVersion: Int { PostgresSQL.migrations.compactMap(\.migrationVersion).max() ?? 0 }

    /// The store's location, for messages.
    var location: String

    /// The latest version applied to the database (0 when none).
    func currentVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.query(
            "SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger)
        var exists = false
        for try await row in rows { exists = try row.decode(Bool.self) }
        guard exists else { return 0 }
        var version = 0
        for try await row in try await connection.query(
            "SELECT coalesce(max(version), 0)::bigint FROM schema_migrations", logger: logger)
        {
            version = Int(try row.decode(Int64.self))
        }
        return version
    }

    /// Applies every pending migration up to `last` (tests stop at an older version). Returns the versions applied.
    @discardableResult
    func migrate(_ connection: PostgresConnection, upTo last: Int = .max, logger: Logger) async throws -> [Int] {
        var applied: [Int] = []
        for migration in PostgresSQL.migrations {
            guard let version = migration.migrationVersion, version <= last else { continue }
            try await connection.query("BEGIN", logger: logger)
            do {
                try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresMigrator.lockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version bigint PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                let current = try await currentVersion(connection, logger: logger)
                guard current <= PostgresMigrator.latestVersion else {
                    throw StoreError(
                        .newerSchema, path: location,
                        "the database \(location) has schema version \(current), but this alstats knows versions up "
                            + "to \(PostgresMigrator.latestVersion): use a newer alstats with it; it was left untouched"
                    )
                }
                if version > current {
                    for statement in PostgresSQL.split(migration.text) {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO schema_migrations (version, name) VALUES (\(Int64(version)), \(migration.stem))",
                        logger: logger)
                    applied.append(version)
                }
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
        return applied
    }
}
