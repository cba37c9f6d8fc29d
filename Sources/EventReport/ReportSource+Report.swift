import EventStoreInterface

extension ReportSource {
    /// The report for `query`: ``rows(for:)`` built into sections, sorted and cut as the query says.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func readReport(for query: ReportQuery) async throws(StoreError) -> Report {
        ReportBuilder().report(from: try await rows(for: query), query: query)
    }
}
