import EventStoreInterface
import MeasurementEvents

extension QueryResult {
    /// The rows as a table, JSON (an array of objects), CSV, Markdown or an HTML page with one table,
    /// written by the report's renderers (the same escaping and quoting as the report's). A table's rows fit
    /// `width` columns where they can: the widest text is cut, never a time.
    public func render(_ format: ReportFormat, width: Int = 100) -> String {
        switch format {
        case .table:
            guard !columns.isEmpty else { return "" }
            // A row too wide for 100 columns cuts its widest text, never a time (`occurred_at`, a day).
            return TextTable(header: columns, rows: cells(), cutting: .widestBut(kept: timeColumns))
                .lines(width: width, indent: "").joined(separator: "\n") + "\n"
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

    /// The columns whose every value is a time: an RFC 3339 timestamp or a `YYYY-MM-DD` date (or null).
    var timeColumns: Set<Int> {
        Set(
            columns.indices.filter { column in
                var any = false
                for row in rows where column < row.count {
                    switch row[column] {
                    case .null: continue
                    case .string(let text) where EventTime.milliseconds(timeOrDate: text) != nil: any = true
                    default: return false
                    }
                }
                return any
            })
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
