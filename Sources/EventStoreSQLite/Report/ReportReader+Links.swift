import EventStoreInterface
import SQLiteSupport

extension ReportReader {
    /// The links funnel for `query`, read with the embedded `Queries/report_links.sql` (`sql`).
    static func links(
        for query: ReportQuery, on connection: SQLiteConnection, sql: String
    ) throws(SQLiteError) -> [ReportRows.Link] {
        let statement = try connection.prepare(sql)
        bind(query, to: statement)
        var links: [ReportRows.Link] = []
        while try statement.step() {
            links.append(
                ReportRows.Link(
                    slug: statement.text(0) ?? "", hits: Int(statement.int64(1)), visitors: Int(statement.int64(2)),
                    crawlerFetches: Int(statement.int64(3)), notFound: Int(statement.int64(4)),
                    arrivals: Int(statement.int64(5))))
        }
        return links
    }
}
