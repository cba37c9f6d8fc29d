import MeasurementEvents
import Testing

@testable import EventReport

/// `alstats query` output: a cell's text must not break the format around it.
struct QueryResultTests {
    @Test func aNewlineOrABarInACellStaysInItsMarkdownRow() {
        let result = QueryResult(
            columns: ["reason|kind", "count"],
            rows: [[.string("timed out\nafter 5 s\r\nretried"), .int(2)], [.string("a|b\\c"), .null]])
        let lines = result.render(.markdown).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines == [
                "| reason\\|kind | count |",
                "| --- | --- |",
                "| timed out after 5 s retried | 2 |",
                "| a\\|b\\\\c | \(ReportText.none) |",
                "",
            ])
    }
}
