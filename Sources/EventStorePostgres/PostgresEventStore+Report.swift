import EventStoreInterface
import PostgresNIO

extension PostgresEventStore {
    /// The grouped counts of a report for `query`, the same rows as the SQLite store's
    /// ``ReportReader/rows(for:)`` for the same events, from the bundled queries' PostgreSQL forms
    /// (`Queries/postgres/report_groups.sql`, `report_daily`, `report_links`, `report_installs` and
    /// `report_first_opens`, which
    /// `alstats query` runs as well): ``ReportBuilder`` turns them into the report.
    ///
    /// ```swift
    /// let report = ReportBuilder().report(from: try await store.rows(for: query), query: query)
    /// ```
    /// Once the database was pruned, the rows are those of the window aligned to buckets before the horizon
    /// (``ReportQuery/alignedToBuckets(before:)``), with ``ReportRows/rawEventsSince``.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func rows(for query: ReportQuery) async throws(StoreError) -> ReportRows {
        try await withConnection(doing: "reading the report") { connection in
            let rawEventsSince = try await self.rawEventsSince(on: connection)
            let query = query.alignedToBuckets(before: rawEventsSince)
            let groups = try await self.rows(
                Self.reportGroups.text, Self.bindings(query, Self.reportGroups), on: connection
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
                Self.reportDaily.text, Self.bindings(query, Self.reportDaily), on: connection
            ) {
                row in
                ReportRows.Bucket(
                    start: try row[0].decode(Int64.self), name: try row[2].decode(String.self),
                    type: try row[3].decode(String?.self), success: try row[4].decode(Int64?.self).map { Int($0) },
                    count: Int(try row[5].decode(Int64.self)))
            }
            let links = try await self.rows(
                Self.reportLinks.text, Self.bindings(query, Self.reportLinks), on: connection
            ) {
                row in
                ReportRows.Link(
                    slug: try row[0].decode(String.self), hits: Int(try row[1].decode(Int64.self)),
                    visitors: Int(try row[2].decode(Int64.self)), crawlerFetches: Int(try row[3].decode(Int64.self)),
                    notFound: Int(try row[4].decode(Int64.self)), arrivals: Int(try row[5].decode(Int64.self)))
            }
            let installs = try await self.rows(
                Self.reportInstalls.text, Self.bindings(query, Self.reportInstalls), on: connection
            ) {
                row in
                ReportRows.LinkInstalls(
                    slug: try row[0].decode(String.self),
                    storeTaps: .init(
                        ios: Int(try row[1].decode(Int64.self)), android: Int(try row[2].decode(Int64.self))),
                    installs: .init(
                        ios: Int(try row[3].decode(Int64.self)), android: Int(try row[4].decode(Int64.self))),
                    deferredOpens: Int(try row[5].decode(Int64.self)),
                    medianDelayMilliseconds: try row[6].decode(Int64?.self))
            }
            let firstOpens = try await self.rows(
                Self.reportFirstOpens.text, Self.bindings(query, Self.reportFirstOpens), on: connection
            ) {
                row in
                ReportRows.FirstOpens(
                    firstOpens: Int(try row[0].decode(Int64.self)), attributed: Int(try row[1].decode(Int64.self)))
            }
            // The losses of the UTC days that begin in the window: a loss has no field a filter could match.
            let completeness = try await self.completeness(on: connection, since: query.since, until: query.until)
            var rows = ReportRows(
                groups: groups, buckets: buckets, completeness: completeness, links: links, linkInstalls: installs,
                firstOpens: firstOpens.first ?? ReportRows.FirstOpens())
            rows.rawEventsSince = rawEventsSince
            return rows
        }
    }

    static let reportGroups = reportSQL("report_groups")
    static let reportDaily = reportSQL("report_daily")
    static let reportLinks = reportSQL("report_links")
    static let reportInstalls = reportSQL("report_installs")
    static let reportFirstOpens = reportSQL("report_first_opens")

    /// The PostgreSQL form of the bundled query `name`; a missing one is a programmer error that every report
    /// test would catch.
    private static func reportSQL(_ name: String) -> PostgresNamedSQL {
        guard let query = QueryCatalog.query(named: name, dialect: .postgres) else {
            preconditionFailure("Queries/\(name).sql is not bundled")
        }
        return PostgresNamedSQL(query.text)
    }

    /// The report queries' parameters :since, :until, :ref, :referer_app, :source_host and :link (none: no limit).
    static func bindings(_ query: ReportQuery, _ sql: PostgresNamedSQL) -> PostgresBindings {
        var values: [String: String] = [:]
        values["since"] = query.since.map { String($0) }
        values["until"] = query.until.map { String($0) }
        values["ref"] = query.ref
        values["referer_app"] = query.refererApp
        values["source_host"] = query.sourceHost
        values["link"] = query.link
        return sql.bindings(values)
    }
}
