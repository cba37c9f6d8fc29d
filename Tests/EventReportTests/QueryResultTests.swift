import MeasurementEvents
import Testing

@testable import EventReport
@testable import EventStoreInterface

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

    @Test func queryHTMLIsTheReportsPageWithEveryCellEscaped() {
        let result = QueryResult(columns: ["host", "count"], rows: [[.string("<script>x</script>"), .int(3)]])
        let page = result.render(.html)
        #expect(page.contains("Content-Security-Policy"))
        #expect(page.contains("<table id=\"query\">"))
        #expect(page.contains("<th scope=\"row\">&lt;script&gt;x&lt;/script&gt;</th><td>3</td>"))
        #expect(!page.contains("<script>"))
    }

    @Test func queryCSVQuotesLineBreaksAndLeavesNullEmpty() {
        let result = QueryResult(
            columns: ["reason", "count"], rows: [[.string("a\nb"), .null], [.string("c,d"), .int(1)]])
        #expect(result.render(.csv) == "reason,count\r\n\"a\nb\",\r\n\"c,d\",1\r\n")
    }
}
