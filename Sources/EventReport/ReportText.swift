import EventStoreInterface
import MeasurementEvents

/// Formatting shared by the renderers.
enum ReportText {
    /// The order of `totals.by_name`.
    static let nameOrder = [EventName.navIn, EventName.navOut, EventName.refBackOut, "other"]
    /// The order of `navigation.by_type`.
    static let typeOrder = [NavigationType.app.rawValue, NavigationType.web.rawValue, NavigationType.fail.rawValue]
    /// How `nil` names and rates are shown in text.
    static let none = "(none)"

    /// RFC 3339 UTC with milliseconds.
    static func time(_ milliseconds: Int64) -> String {
        EventTime.rfc3339(milliseconds: milliseconds)
    }

    /// A rate as a percentage with one decimal, or `(none)`.
    static func percent(_ rate: Double?) -> String {
        guard let rate else { return none }
        let tenths = Int((rate * 1_000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// An integer with thousands separators.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return value < 0 ? "-" + result : result
    }

    /// The window as one line.
    static func window(_ window: Report.Window) -> String {
        "\(span(window)), days in \(window.timeZone)"
    }

    /// The window's time span, without the time zone: `all events`, `events from ... on`.
    static func span(_ window: Report.Window) -> String {
        switch (window.since.map(time), window.until.map(time)) {
        case (nil, nil): return "all events"
        case (let since?, nil): return "events from \(since) on"
        case (nil, let until?): return "events before \(until)"
        case (let since?, let until?): return "events from \(since) to \(until) (exclusive)"
        }
    }

    /// The completeness as one line.
    static func completeness(_ completeness: Report.Completeness) -> String {
        let reasons = completeness.byReason.sorted { $0.key < $1.key }.map { "\($0.key) \(count($0.value))" }
        let detail = reasons.isEmpty ? "" : " (" + reasons.joined(separator: ", ") + ")"
        let altered = completeness.altered > 0 ? ", \(count(completeness.altered)) altered" : ""
        return
            "\(count(completeness.dropped)) \("event".pluralized(for: completeness.dropped)) dropped, "
            + "\(count(completeness.rejected)) rejected\(altered)\(detail)"
    }
}

/// A table of text cells: the first column left-aligned (names), the others right-aligned (numbers),
/// the first column cut with `…` so that a row fits `width` columns.
struct TextTable {
    var header: [String]
    var rows: [[String]]

    /// The table's lines, each at most `width` characters when that is possible.
    func lines(width: Int = 100, indent: String = "  ") -> [String] {
        let gap = 2
        var widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        let numbers = widths.dropFirst().reduce(0, +) + gap * (widths.count - 1) + indent.count
        if widths[0] + numbers > width { widths[0] = max(12, width - numbers) }
        return ([header] + rows).map { row in
            let cells = row.enumerated().map { column, cell -> String in
                if column == 0 {
                    let cut = cell.count > widths[0] ? String(cell.prefix(widths[0] - 1)) + "…" : cell
                    return cut.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                }
                return String(repeating: " ", count: max(0, widths[column] - cell.count)) + cell
            }
            var line = indent + cells.joined(separator: String(repeating: " ", count: gap))
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}

extension Report {
    /// The report's tables, in order, with their titles: what the table and Markdown renderers show.
    /// Longer than 60 lines on purpose: one declarative list, a section per entry, in the order of the output.
    func tables() -> [(title: String, table: TextTable)] {
        let n = ReportText.count
        let p = ReportText.percent
        let name = { (value: String?) in value ?? ReportText.none }
        var result: [(String, TextTable)] = []
        result.append(
            (
                "Totals",
                TextTable(
                    header: ["event", "events"],
                    rows: ReportText.nameOrder.map { [$0, n(totals.byName[$0, default: 0])] } + [
                        ["all", n(totals.events)]
                    ])
            ))
        result.append(
            (
                "Outbound navigation (al_nav_out)",
                TextTable(
                    header: ["outcome", "events", "share"],
                    rows: [
                        ["attempts", n(navigation.attempts), ""],
                        ["succeeded", n(navigation.succeeded), p(navigation.successRate)],
                    ]
                        + ReportText.typeOrder.map { type in
                            ["type \(type)", n(navigation.byType[type, default: 0]), p(navigation.share(ofType: type))]
                        })
            ))
        result.append(
            (
                "Failure reasons",
                TextTable(
                    header: ["error", "failed"], rows: navigation.failureReasons.map { [name($0.error), n($0.count)] })
            ))
        result.append(
            (
                "Source hosts",
                TextTable(
                    header: ["host", "attempts", "succeeded", "success"],
                    rows: navigation.sourceHosts.map {
                        [name($0.host), n($0.attempts), n($0.succeeded), p($0.successRate)]
                    })
            ))
        result.append(
            (
                "Back to referer (al_ref_back_out)",
                TextTable(
                    header: ["outcome", "events", "share"],
                    rows: [
                        ["attempts", n(backNavigation.attempts), ""],
                        ["succeeded", n(backNavigation.succeeded), p(backNavigation.successRate)],
                    ])
            ))
        result.append(
            (
                "Referer apps",
                TextTable(
                    header: ["referer app", "arrivals", "share", "returns", "return rate"],
                    rows: refererApps.map {
                        [name($0.name), n($0.arrivals), p($0.share), n($0.returns), p($0.returnRate)]
                    })
            ))
        result.append(
            (
                "Ref categories",
                TextTable(
                    header: ["ref", "arrivals", "out", "out ok", "out success", "returns"],
                    rows: refCategories.map {
                        [
                            name($0.ref), n($0.arrivals), n($0.navOutAttempts), n($0.navOutSucceeded),
                            p($0.navOutSuccessRate), n($0.returns),
                        ]
                    })
            ))
        result.append(
            (
                "Daily (\(window.timeZone))",
                TextTable(
                    header: ["date", "al_nav_in", "al_nav_out", "al_ref_back_out", "out success"],
                    rows: daily.map { [$0.date, n($0.navIn), n($0.navOut), n($0.refBackOut), p($0.navOutSuccessRate)] })
            ))
        result.append(("Hosted links", linksTable()))
        return result
    }
}
