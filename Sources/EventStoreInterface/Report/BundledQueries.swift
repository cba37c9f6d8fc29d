import MeasurementEvents

/// The bundled queries, the top-level `Queries/NAME.sql` and their PostgreSQL variants `NAME.postgres.sql`,
/// embedded in the binary by the EmbedSQL build plugin (Plugins/EmbedSQL), so that a lone copied `alstats` binary
/// still runs them. A new query needs no line of code; `BundledQueriesTests` holds the embedded text to the folder.
package enum BundledQueries {
    /// Every bundled query file, by name.
    package static let files: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.queries)
}
