import EmbeddedSQLFiles
import MeasurementEvents

/// The bundled queries, the top-level `Queries/NAME.sql` and their PostgreSQL variants `Queries/postgres/NAME.sql`
/// (beside `Migrations/postgres/`), embedded in the binary by the EmbedSQL build plugin (Plugins/EmbedSQL), so that a
/// lone copied `alstats` binary still runs them. A new query needs no line of code; `BundledQueriesTests` holds the
/// embedded text to the folders.
package enum BundledQueries {
    /// `Queries/NAME.sql`, portable: what SQLite runs, by name.
    package static let files: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.queries)
    /// `Queries/postgres/NAME.sql`: what PostgreSQL runs instead of the portable file of the same name, by name.
    package static let postgresFiles: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.postgresQueries)
}
