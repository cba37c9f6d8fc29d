import MeasurementEvents

/// Where the report's rows and the bundled queries' results come from, whatever the database: the SQLite
/// ``ReportReader``, or the PostgreSQL module's reader. `alstats report`, `alstats query` and the server's
/// report routes read through it and do not know which backend answers.
///
/// ```swift
/// let source: any ReportSource = ReportReader(store: store)
/// let report = try await source.readReport(for: ReportQuery(since: nil, until: nil))
/// let failures = try await source.runQuery(QueryCatalog.query(named: "failure_reasons", dialect: source.dialect)!,
///                                          parameters: [:])
/// ```
public protocol ReportSource: Sendable {
    /// The SQL dialect of the backend: which variant of a bundled query it runs (``QueryCatalog/Dialect``).
    var dialect: QueryCatalog.Dialect { get }

    /// The grouped counts of the report for `query` (its window and filters), with the completeness counts and
    /// the hosted links funnel.
    /// - Throws: ``StoreError`` when the database cannot be read.
    func rows(for query: ReportQuery) async throws(StoreError) -> ReportRows

    /// Runs a bundled query with `parameters` (names without the colon; a whole number binds as an integer,
    /// anything else as text; unbound parameters are NULL, which the queries read as "no filter"). `query`
    /// comes from ``QueryCatalog/query(named:dialect:)`` with this source's ``dialect``.
    /// - Throws: ``QueryError`` for a parameter the query does not have; ``StoreError`` from the database.
    func runQuery(_ query: QueryCatalog.Query, parameters: [String: String]) async throws -> QueryResult
}
