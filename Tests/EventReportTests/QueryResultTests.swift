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

    /// A row too wide for the table cuts its widest text (here the URLs), never a time column, however wide.
    @Test func aTableNeverCutsATimeColumn() {
        let url = "https://video.example.org/item/397?" + String(repeating: "long=1&", count: 12)
        let result = QueryResult(
            columns: ["occurred_at", "ref", "source_url", "output_url", "day"],
            rows: [
                [
                    .string("2025-11-16T13:10:42.123Z"), .string("ad"), .string(url), .string(url),
                    .string("2025-11-16"),
                ],
                [.null, .string("feed"), .string("https://a.example/"), .null, .string("2025-11-17")],
            ])
        #expect(result.timeColumns == [0, 4])
        let lines = result.render(.table).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.count <= 100 }, "\(lines)")
        #expect(lines[1].hasPrefix("2025-11-16T13:10:42.123Z  ") && lines[1].hasSuffix("2025-11-16"), "\(lines[1])")
        #expect(lines[1].contains("  https://video.example.org/…  "), "the URLs are cut instead")
        #expect(lines[1].contains("…"))
    }

    @Test func queryCSVQuotesLineBreaksAndLeavesNullEmpty() {
        let result = QueryResult(
            columns: ["reason", "count"], rows: [[.string("a\nb"), .null], [.string("c,d"), .int(1)]])
        #expect(result.render(.csv) == "reason,count\r\n\"a\nb\",\r\n\"c,d\",1\r\n")
    }
}
