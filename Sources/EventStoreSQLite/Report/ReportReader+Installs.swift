import EventStoreInterface
import SQLiteSupport

extension ReportReader {
    /// The install path per link for `query`, read with the embedded `Queries/report_installs.sql` (`sql`).
    static func linkInstalls(
        for query: ReportQuery, on connection: SQLiteConnection, sql: String
    ) throws(SQLiteError) -> [ReportRows.LinkInstalls] {
        let statement = try connection.prepare(sql)
        bind(query, to: statement)
        var rows: [ReportRows.LinkInstalls] = []
        while try statement.step() {
            rows.append(
                ReportRows.LinkInstalls(
                    slug: statement.text(0) ?? "",
                    storeTaps: .init(ios: Int(statement.int64(1)), android: Int(statement.int64(2))),
                    installs: .init(ios: Int(statement.int64(3)), android: Int(statement.int64(4))),
                    deferredOpens: Int(statement.int64(5)),
                    medianDelayMilliseconds: statement.isNull(6) ? nil : statement.int64(6)))
        }
        return rows
    }

    /// The first opens for `query`, read with the embedded `Queries/report_first_opens.sql` (`sql`).
    static func firstOpens(
        for query: ReportQuery, on connection: SQLiteConnection, sql: String
    ) throws(SQLiteError) -> ReportRows.FirstOpens {
        let statement = try connection.prepare(sql)
        bind(query, to: statement)
        guard try statement.step() else { return ReportRows.FirstOpens() }
        return ReportRows.FirstOpens(firstOpens: Int(statement.int64(0)), attributed: Int(statement.int64(1)))
    }
}
