import EventStoreInterface
import MeasurementEvents

extension QueryResult {
    /// The rows as a table, JSON (an array of objects), CSV, Markdown or an HTML page with one table,
    /// written by the report's renderers (the same escaping and quoting as the report's).
    public func render(_ format: ReportFormat) -> String {
        switch format {
        case .table:
            guard !columns.isEmpty else { return "" }
            return TextTable(header: columns, rows: cells()).lines(indent: "").joined(separator: "\n") + "\n"
        case .json:
            let objects = rows.map { row in JSONValue.object(JSONObject(zip(columns, row).map { ($0, $1) })) }
            return JSONValue.array(objects).jsonText() + "\n"
        case .csv:
            return CSVRenderer.document([columns] + cells(null: ""))
        case .markdown:
            return MarkdownRenderer.table(header: columns, rows: cells(), numbersRightAligned: false)
                .joined(separator: "\n") + "\n"
        case .html:
            let table = HTMLRenderer().table(id: "query", caption: "alstats query", header: columns, rows: cells())
            return HTMLRenderer.page(title: "alstats query", body: ["<main>"] + table + ["</main>"])
        }
    }

    /// Every value as the text a cell shows: text as it is, numbers in JSON form, null as `null`.
    fileprivate func cells(null: String = ReportText.none) -> [[String]] {
        rows.map { row in
            row.map { value in
                switch value {
                case .null: null
                case .string(let string): string
                default: value.jsonText()
                }
            }
        }
    }
}
