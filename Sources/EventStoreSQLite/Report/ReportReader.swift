import EventStoreInterface
import SQLiteSupport

/// Reads a report's rows from the store with the embedded `Queries/report_groups.sql`,
/// `Queries/report_daily.sql`, `report_links`, `report_installs` and `report_first_opens`, so that `alstats report` and `sqlite3 < Queries/...` run the same SQL.
///
/// Both queries read the write-time rollups for whole 15-minute buckets and the raw events only for
/// the partial buckets at the window's edges: the cost grows with the number of groups, not of events.
public struct ReportReader: ReportSource {
    private let store: SQLiteEventStore

    /// A reader of `store`.
    public init(store: SQLiteEventStore) {
        self.store = store
    }

    /// SQLite: the portable `Queries/NAME.sql`.
    public var dialect: QueryCatalog.Dialect { .sqlite }

    /// The grouped counts for `query`; once the store was pruned, for its window aligned to buckets before the
    /// horizon (``ReportQuery/alignedToBuckets(before:)``), with ``ReportRows/rawEventsSince``.
    public func rows(for query: ReportQuery) throws(StoreError) -> ReportRows {
        let groupsSQL = try ReportReader.querySQL("report_groups", path: store.path)
        let dailySQL = try ReportReader.querySQL("report_daily", path: store.path)
        let linksSQL = try ReportReader.querySQL("report_links", path: store.path)
        let installsSQL = try ReportReader.querySQL("report_installs", path: store.path)
        let firstOpensSQL = try ReportReader.querySQL("report_first_opens", path: store.path)
        return try store.withStore { store throws(SQLiteError) -> ReportRows in
            let connection = store.connection
            let rawEventsSince = try SQLiteEventStore.rawEventsSince(on: connection)
            let query = query.alignedToBuckets(before: rawEventsSince)
            var groups: [ReportRows.Group] = []
            let groupStatement = try connection.prepare(groupsSQL)
            ReportReader.bind(query, to: groupStatement)
            while try groupStatement.step() {
                groups.append(
                    ReportRows.Group(
                        name: groupStatement.text(0) ?? "", ref: groupStatement.text(1),
                        refererAppName: groupStatement.text(2), type: groupStatement.text(3),
                        success: groupStatement.isNull(4) ? nil : Int(groupStatement.int64(4)),
                        sourceURLHost: groupStatement.text(5), error: groupStatement.text(6),
                        count: Int(groupStatement.int64(7))))
            }
            var buckets: [ReportRows.Bucket] = []
            let dailyStatement = try connection.prepare(dailySQL)
            ReportReader.bind(query, to: dailyStatement)
            while try dailyStatement.step() {
                buckets.append(
                    ReportRows.Bucket(
                        start: dailyStatement.int64(0), name: dailyStatement.text(2) ?? "",
                        type: dailyStatement.text(3),
                        success: dailyStatement.isNull(4) ? nil : Int(dailyStatement.int64(4)),
                        count: Int(dailyStatement.int64(5))))
            }
            // The losses of the UTC days that begin in the window: a loss has no field a filter could match.
            let completeness = try SQLiteEventStore.completeness(
                on: connection, since: query.since, until: query.until)
            let links = try ReportReader.links(for: query, on: connection, sql: linksSQL)
            var rows = ReportRows(
                groups: groups, buckets: buckets, completeness: completeness, links: links,
                linkInstalls: try ReportReader.linkInstalls(for: query, on: connection, sql: installsSQL),
                firstOpens: try ReportReader.firstOpens(for: query, on: connection, sql: firstOpensSQL))
            rows.rawEventsSince = rawEventsSince
            return rows
        }
    }

    /// Runs the bundled `query` with `parameters` (``QueryCatalog/run(_:parameters:on:)`` on this reader's store).
    /// - Throws: ``QueryError`` for a parameter the query does not have; ``StoreError`` from SQLite.
    public func runQuery(_ query: QueryCatalog.Query, parameters: [String: String]) throws -> QueryResult {
        try QueryCatalog.run(query, parameters: parameters, on: store)
    }

    static func bind(_ query: ReportQuery, to statement: SQLiteStatement) {
        statement.bind(named: ":since", query.since)
        statement.bind(named: ":until", query.until)
        statement.bind(named: ":ref", query.ref)
        statement.bind(named: ":referer_app", query.refererApp)
        statement.bind(named: ":source_host", query.sourceHost)
        statement.bind(named: ":link", query.link)
    }

    /// The SQL of the bundled query `stem` in `dialect` (its variant file, else the portable one), for a
    /// backend's report reader.
    /// - Throws: ``StoreError`` naming `path` when the binary lacks the query.
    package static func querySQL(
        _ stem: String, dialect: QueryCatalog.Dialect = .sqlite, path: String
    ) throws(StoreError) -> String {
        guard let query = QueryCatalog.query(named: stem, dialect: dialect) else {
            throw StoreError(
                .io, path: path, "this alstats binary lacks its query \(stem).sql; it is missing from BundledQueries")
        }
        return query.text
    }
}
