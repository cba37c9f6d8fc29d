import EventReport
import EventStore
import PostgresNIO

extension PostgresEventStore {
    /// The grouped counts of a report for `query`, the same rows as the SQLite store's
    /// ``ReportReader/rows(for:)`` for the same events (Statements/report_groups.sql, report_daily.sql and
    /// report_links.sql are PostgreSQL's forms of its queries): ``ReportBuilder`` turns them into the report.
    ///
    /// ```swift
    /// let report = ReportBuilder().report(from: try await store.rows(for: query), query: query)
    /// ```
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func rows(for query: ReportQuery) async throws(StoreError) -> ReportRows {
        try await withConnection(doing: "reading the report") { connection in
            let groups = try await self.rows(
                PostgresSQL.statement("report_groups"), Self.bindings(query), on: connection
            ) {
                row in
                ReportRows.Group(
                    name: try row[0].decode(String.self), ref: try row[1].decode(String?.self),
                    refererAppName: try row[2].decode(String?.self), type: try row[3].decode(String?.self),
                    success: try row[4].decode(Int64?.self).map { Int($0) },
                    sourceURLHost: try row[5].decode(String?.self), error: try row[6].decode(String?.self),
                    count: Int(try row[7].decode(Int64.self)))
            }
            let buckets = try await self.rows(
                PostgresSQL.statement("report_daily"), Self.bindings(query), on: connection
            ) {
                row in
                ReportRows.Bucket(
                    start: try row[0].decode(Int64.self), name: try row[1].decode(String.self),
                    type: try row[2].decode(String?.self), success: try row[3].decode(Int64?.self).map { Int($0) },
                    count: Int(try row[4].decode(Int64.self)))
            }
            let links = try await self.rows(PostgresSQL.statement("report_links"), Self.bindings(query), on: connection)
            {
                row in
                Report.Link(
                    slug: try row[0].decode(String.self), hits: Int(try row[1].decode(Int64.self)),
                    visitors: Int(try row[2].decode(Int64.self)), crawlerFetches: Int(try row[3].decode(Int64.self)),
                    notFound: Int(try row[4].decode(Int64.self)), arrivals: Int(try row[5].decode(Int64.self)))
            }
            let completeness = try await self.completeness(on: connection)
            return ReportRows(groups: groups, buckets: buckets, completeness: completeness, links: links)
        }
    }

    /// The report for `query`.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func report(for query: ReportQuery) async throws(StoreError) -> Report {
        ReportBuilder().report(from: try await rows(for: query), query: query)
    }

    /// $1 since, $2 until, $3 ref, $4 referer app (NULL: no limit).
    static func bindings(_ query: ReportQuery) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(query.since)
        binds.append(query.until)
        binds.append(query.ref)
        binds.append(query.refererApp)
        return binds
    }
}
