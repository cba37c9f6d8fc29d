import EventReport
import EventStoreInterface
import EventStoreSQLite

extension ReportReader {
    /// The report for `query`, read and built on the caller's thread (the SQLite reader never suspends), as
    /// `readReport(for:)` builds it.
    func report(for query: ReportQuery) throws(StoreError) -> Report {
        ReportBuilder().report(from: try rows(for: query), query: query)
    }
}
