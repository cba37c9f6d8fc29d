import MeasurementEvents

/// The report as aligned text tables that fit 100 columns, `(none)` for missing names and rates.
struct TableRenderer {
    /// Bold titles (ANSI); the CLI sets it only on a terminal without NO_COLOR.
    var colour: Bool

    func render(_ report: Report) -> String {
        var lines = [
            title("alstats report"),
            "  " + ReportText.window(report.window),
            "  completeness: " + ReportText.completeness(report.completeness),
        ]
        if let retention = ReportText.retention(report.window) { lines.insert("  " + retention, at: 2) }
        if let previous = report.previous, let alerts = report.alertsTable() {
            lines.append("  compared with " + ReportText.span(previous.window) + ": changes in parentheses")
            lines.append("")
            lines.append(title("Alerts (success fell against the previous period)"))
            lines += alerts.rows.isEmpty ? ["  (no alerts)"] : alerts.lines(width: 120)
            if report.alertsExplainOthers { lines.append("  " + ReportText.explainedNote) }
        }
        for (name, table) in report.tables() {
            lines.append("")
            lines.append(title(name))
            if table.rows.isEmpty {
                lines.append("  (no events)")
            } else {
                lines += table.lines()
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func title(_ text: String) -> String {
        colour ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }
}

/// The report as Markdown: a heading per section, a pipe table each.
struct MarkdownRenderer {
    func render(_ report: Report) -> String {
        var lines = [
            "# alstats report", "", ReportText.window(report.window).capitalisedFirst + ".", "",
            "Completeness: " + ReportText.completeness(report.completeness) + ".",
        ]
        if let retention = ReportText.retention(report.window) { lines += ["", retention.capitalisedFirst + "."] }
        if let previous = report.previous, let alerts = report.alertsTable() {
            lines += ["", "Compared with " + ReportText.span(previous.window) + ": changes in parentheses."]
            lines += ["", "## Alerts (success fell against the previous period)", ""]
            lines +=
                alerts.rows.isEmpty
                ? ["No alerts."] : Self.table(header: alerts.header, rows: alerts.rows, numbersRightAligned: true)
            if report.alertsExplainOthers { lines += ["", ReportText.explainedNote + "."] }
        }
        for (name, table) in report.tables() {
            lines += ["", "## \(name)", ""]
            if table.rows.isEmpty {
                lines.append("No events.")
                continue
            }
            lines += Self.table(header: table.header, rows: table.rows, numbersRightAligned: true)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A pipe table, every cell escaped; with `numbersRightAligned`, every column after the first.
    static func table(header: [String], rows: [[String]], numbersRightAligned: Bool) -> [String] {
        let rule = header.indices.map { $0 > 0 && numbersRightAligned ? " ---: |" : " --- |" }.joined()
        return ["| " + header.map(escape).joined(separator: " | ") + " |", "|" + rule]
            + rows.map { "| " + $0.map(escape).joined(separator: " | ") + " |" }
    }

    /// A cell that stays in its row: backslashes and `|` escaped, every line break (`\n`, `\r\n`, `\r`) a space, other
    /// control characters written out (``TerminalText/printable(_:)``).
    static func escape(_ cell: String) -> String {
        TerminalText.printable(
            cell.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "|", with: "\\|")
                .replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\r", with: " ")
                .replacingOccurrences(of: "\n", with: " "))
    }
}

extension String {
    var capitalisedFirst: String { prefix(1).uppercased() + dropFirst() }
}
