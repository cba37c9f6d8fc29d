import EventReport
import EventStore

/// The PostgreSQL store behind the backend protocols, so that the server and the CLI need not know which
/// backend they write to and read from.
extension PostgresEventStore: EventBackend {}

extension PostgresEventStore: ReportSource {
    /// PostgreSQL: a bundled query runs its `NAME.postgres.sql` variant.
    public var dialect: QueryCatalog.Dialect { .postgres }

    /// Runs a bundled query. None has a PostgreSQL variant yet (the bundled queries are SQLite's), so every one
    /// throws ``QueryError/notAvailable(query:database:)``; the report itself (``rows(for:)``) reads PostgreSQL.
    /// - Throws: ``QueryError/notAvailable(query:database:)``.
    public func runQuery(_ query: QueryCatalog.Query, parameters: [String: String]) async throws -> QueryResult {
        throw QueryError.notAvailable(query: query.name, database: location)
    }
}
