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

    /// A delay in ms as its two largest units (`45 s`, `12 min 5 s`, `3 h 12 min`, `2 d 4 h`), or `(none)`.
    static func duration(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return none }
        let seconds = milliseconds / 1_000
        let units: [(Int64, String)] = [(86_400, "d"), (3_600, "h"), (60, "min"), (1, "s")]
        guard let first = units.firstIndex(where: { seconds >= $0.0 }) else { return "\(milliseconds) ms" }
        let (size, name) = units[first]
        var text = "\(seconds / size) \(name)"
        if first + 1 < units.count {
            let (next, nextName) = units[first + 1]
            let rest = seconds % size / next
            if rest > 0 { text += " \(rest) \(nextName)" }
        }
        return text
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

    /// From when raw events exist, as one line, when the store was pruned (``Report/Window/rawEventsSince``): `raw
    /// events since 2025-08-01T00:00:00Z`, and which edge of the window moved to its 15-minute bucket's start.
    static func retention(_ window: Report.Window) -> String? {
        guard let since = window.rawEventsSince else { return nil }
        var moved: [String] = []
        if let start = window.requestedSince, let read = window.since {
            moved.append("start \(time(start)) read from \(time(read))")
        }
        if let end = window.requestedUntil, let read = window.until {
            moved.append("end \(time(end)) read to \(time(read))")
        }
        let note =
            moved.isEmpty ? "" : " (before it only whole 15-minute buckets: " + moved.joined(separator: ", ") + ")"
        return "raw events since \(time(since))\(note)"
    }

    /// The completeness as one line.
    static func completeness(_ completeness: Report.Completeness) -> String {
        // A device's reason (`device:REASON`) is what a client sent: written out as every value is.
        let reasons = completeness.byReason.sorted { $0.key < $1.key }.map {
            "\(TerminalText.printable($0.key)) \(count($0.value))"
        }
        let detail = reasons.isEmpty ? "" : " (" + reasons.joined(separator: ", ") + ")"
        let altered = completeness.altered > 0 ? ", \(count(completeness.altered)) altered" : ""
        return
            "\(count(completeness.dropped)) \("event".pluralized(for: completeness.dropped)) dropped, "
            + "\(count(completeness.rejected)) rejected\(altered)\(detail)" + unfiltered(completeness.notFilteredBy)
    }

    /// What the completeness line says of the filters its losses do not follow: nothing without a filter.
    static func unfiltered(_ filters: [String]) -> String {
        guard !filters.isEmpty else { return "" }
        let names = filters.map { $0.replacingOccurrences(of: "_", with: " ") }
        let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
        return "; counted for every \(list): a loss other than applink_rejected has no field to filter on"
    }
}

/// A table of text cells: the first column left-aligned (names), the others right-aligned (numbers),
/// cut with `…` where a row would not fit `width` columns (``Cutting``).
struct TextTable {
    var header: [String]
    var rows: [[String]]
    /// Which cells are cut to fit the width.
    var cutting: Cutting = .firstColumn

    /// Which cells a table cuts when a row would not fit.
    enum Cutting {
        /// The first column only (the report's names; its other columns are numbers).
        case firstColumn
        /// The widest columns first, but never the columns of `kept` (a query's times: a time cut short is no time).
        case widestBut(kept: Set<Int>)
    }

    /// The table's lines, each at most `width` characters when that is possible.
    func lines(width: Int = 100, indent: String = "  ") -> [String] {
        let gap = 2
        let rows = self.rows.map { $0.map(TerminalText.printable) }
        var widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        switch cutting {
        case .firstColumn:
            let numbers = widths.dropFirst().reduce(0, +) + gap * (widths.count - 1) + indent.count
            if widths[0] + numbers > width { widths[0] = max(12, width - numbers) }
        case .widestBut(let kept):
            var excess = widths.reduce(0, +) + gap * (widths.count - 1) + indent.count - width
            while excess > 0 {
                let cuttable = widths.indices.filter { !kept.contains($0) && widths[$0] > 12 }
                guard let widest = cuttable.max(by: { widths[$0] < widths[$1] }) else { break }
                let next = cuttable.filter { $0 != widest }.map { widths[$0] }.max() ?? 0
                let cut = min(excess, max(1, widths[widest] - max(12, next)))
                widths[widest] -= cut
                excess -= cut
            }
        }
        return ([header] + rows).map { row in
            let cells = row.enumerated().map { column, cell -> String in
                let cut = cell.count > widths[column] ? String(cell.prefix(widths[column] - 1)) + "…" : cell
                if column == 0 { return cut.padding(toLength: widths[0], withPad: " ", startingAt: 0) }
                return String(repeating: " ", count: max(0, widths[column] - cut.count)) + cut
            }
            var line = indent + cells.joined(separator: String(repeating: " ", count: gap))
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}

extension Report {
    /// The report's tables, in order, with their titles: what the table and Markdown renderers show; with a
    /// comparison, each figure followed by its change against the previous period (``ReportChange``).
    /// Longer than 60 lines on purpose: one declarative list, a section per entry, in the order of the output.
    func tables() -> [(title: String, table: TextTable)] {
        let change = self.change
        let whole: Prior<Report> = previous.map { .found($0) } ?? .none
        var result: [(String, TextTable)] = []
        result.append(
            (
                "Totals",
                TextTable(
                    header: ["event", "events"],
                    rows: ReportText.nameOrder.map { event in
                        [
                            event,
                            change.count(totals.byName[event, default: 0], whole) {
                                $0.totals.byName[event, default: 0]
                            },
                        ]
                    } + [
                        ["all", change.count(totals.events, whole) { $0.totals.events }]
                    ])
            ))
        result.append(
            (
                "Outbound navigation (al_nav_out)",
                TextTable(
                    header: ["outcome", "events", "share"],
                    rows: [
                        ["attempts", change.count(navigation.attempts, whole) { $0.navigation.attempts }, ""],
                        [
                            "succeeded", change.count(navigation.succeeded, whole) { $0.navigation.succeeded },
                            change.rate(navigation.successRate, whole) { $0.navigation.successRate },
                        ],
                    ] + outboundTypeRows(change).map { ["type " + $0[0]] + $0.dropFirst() })
            ))
        result.append(
            (
                "Failure reasons",
                TextTable(
                    header: ["error", "failed"],
                    rows: failureReasonRows(change))
            ))
        result.append(
            (
                "Source hosts",
                TextTable(
                    header: ["host", "attempts", "succeeded", "success"],
                    rows: sourceHostRows(change))
            ))
        result.append(
            (
                "Back to referer (al_ref_back_out)",
                TextTable(
                    header: ["outcome", "events", "share"],
                    rows: [
                        ["attempts", change.count(backNavigation.attempts, whole) { $0.backNavigation.attempts }, ""],
                        [
                            "succeeded", change.count(backNavigation.succeeded, whole) { $0.backNavigation.succeeded },
                            change.rate(backNavigation.successRate, whole) { $0.backNavigation.successRate },
                        ],
                    ])
            ))
        result.append(
            (
                "Referer apps",
                TextTable(
                    header: ["referer app", "arrivals", "share", "returns", "return rate"],
                    rows: refererAppRows(change))
            ))
        result.append(
            (
                "Ref categories",
                TextTable(
                    header: ["ref", "arrivals", "out", "out ok", "out success", "returns"],
                    rows: refCategoryRows(change))
            ))
        let n = ReportText.count
        let p = ReportText.percent
        result.append(
            (
                "Daily (\(window.timeZone))",
                TextTable(
                    header: ["date", "al_nav_in", "al_nav_out", "al_ref_back_out", "out success"],
                    rows: daily.map { [$0.date, n($0.navIn), n($0.navOut), n($0.refBackOut), p($0.navOutSuccessRate)] })
            ))
        result.append(("Hosted links", linksTable(change)))
        result.append(("Installs from hosted links", installsTable(change)))
        result.append(("First opens", firstOpensTable(change)))
        return result
    }

    /// The alerts as a table (slice, measure now and before, the fall, attempts now and before, top failure), each
    /// cause followed by the alerts it explains, their slice marked `↳` (``explainedMark``); `nil` without a
    /// comparison.
    func alertsTable() -> TextTable? {
        guard let alerts else { return nil }
        return TextTable(
            header: ["slice", "measure", "now", "before", "change", "attempts", "before", "top failure"],
            rows: alerts.flatMap { cause in
                [Self.alertRow(cause, slice: ReportText.sliceName(cause))]
                    + cause.explains.map { explained in
                        Self.alertRow(explained, slice: ReportText.explainedMark + ReportText.sliceName(explained))
                    }
            })
    }

    /// Whether some alert explains others: the text formats then say what `↳` means.
    var alertsExplainOthers: Bool { alerts?.contains { !$0.explains.isEmpty } ?? false }

    private static func alertRow(_ alert: Alert, slice: String) -> [String] {
        let n = ReportText.count
        let p = ReportText.percent
        let failure = alert.topFailure.map { "\($0.error ?? ReportText.none) \(n($0.now)) (\(n($0.before)) before)" }
        return [
            slice, alert.measure == .openRate ? "open" : "nav_out success", p(alert.now.rate), p(alert.before.rate),
            ReportChange.points(alert.now.rate, alert.before.rate), n(alert.now.attempts), n(alert.before.attempts),
            failure ?? "",
        ]
    }
}

extension ReportText {
    /// What marks an explained alert's slice in the text formats.
    static let explainedMark = "\u{21B3} "
    /// The line under the alerts that says what ``explainedMark`` means.
    static let explainedNote =
        "\u{21B3} explained by the source host above: without its navigations, the slice no longer falls"

    /// `all`, `source_host shop.example.com`, `ref feed`, `link invite`.
    static func sliceName(_ alert: Report.Alert) -> String {
        alert.dimension == .all ? "all" : "\(alert.dimension.rawValue) \(alert.value ?? none)"
    }
}

/// What the previous period says of a row of the tables.
enum Prior<Row> {
    /// No comparison.
    case none
    /// The row of the previous period.
    case found(Row)
    /// Not in a previous list that was not cut: nothing of it in the previous period.
    case absent
    /// Not in a previous list that was cut: unknown.
    case unknown
}

/// The changes of the text formats against the previous period: counts in percent (`8,140 (+12%)`, `(new)`
/// from zero), rates in percentage points (`77.2% (−4.1 pp)`).
struct ReportChange {
    var previous: Report?
    var top: Int?

    /// The previous period's row of the list at `list` that `matches`.
    func prior<Row>(_ list: KeyPath<Report, [Row]>, matching matches: (Row) -> Bool) -> Prior<Row> {
        guard let previous else { return .none }
        let rows = previous[keyPath: list]
        if let row = rows.first(where: matches) { return .found(row) }
        if let top, rows.count >= top { return .unknown }
        return .absent
    }

    /// `now` with its change against the previous row's `value`.
    func count<Row>(_ now: Int, _ prior: Prior<Row>, _ value: (Row) -> Int) -> String {
        let text = ReportText.count(now)
        switch prior {
        case .none, .unknown: return text
        case .absent: return now == 0 ? text : text + " (new)"
        case .found(let row): return text + " " + Self.percentChange(now, value(row))
        }
    }

    /// The rate `now` with its change in points against the previous row's `value`.
    func rate<Row>(_ now: Double?, _ prior: Prior<Row>, _ value: (Row) -> Double?) -> String {
        let text = ReportText.percent(now)
        guard case .found(let row) = prior, let now, let before = value(row) else { return text }
        return text + " (" + Self.points(now, before) + ")"
    }

    /// `(+12%)`, `(−4%)`, `(±0%)`; `(new)` from zero, nothing from zero to zero.
    static func percentChange(_ now: Int, _ before: Int) -> String {
        if before == 0 { return now == 0 ? "(±0%)" : "(new)" }
        let percent = Int((Double(now - before) / Double(before) * 100).rounded())
        return "(" + signed(percent) + "%)"
    }

    /// The sign of a count's change as ``percentChange(_:_:)`` writes it: 0 when it rounds to `±0%`, 1 for
    /// `(new)`.
    static func shownSign(_ now: Int, _ before: Int) -> Int {
        if before == 0 { return now == 0 ? 0 : 1 }
        return Int((Double(now - before) / Double(before) * 100).rounded()).signum()
    }

    /// The sign of a rate's change as ``points(_:_:)`` writes it: 0 when it rounds to `±0.0 pp`.
    static func shownSign(_ now: Double, _ before: Double) -> Int {
        Int(((now - before) * 1_000).rounded()).signum()
    }

    /// The change from `before` to `now` in percentage points with one decimal: `+1.2 pp`, `−4.1 pp`.
    static func points(_ now: Double, _ before: Double) -> String {
        let tenths = Int(((now - before) * 1_000).rounded())
        return signed(tenths / 10, tenths: abs(tenths % 10), negative: tenths < 0) + " pp"
    }

    private static func signed(_ value: Int) -> String {
        value > 0 ? "+\(value)" : value < 0 ? "\u{2212}\(-value)" : "\u{00B1}0"
    }

    private static func signed(_ whole: Int, tenths: Int, negative: Bool) -> String {
        let magnitude = "\(abs(whole)).\(tenths)"
        if whole == 0 && tenths == 0 { return "\u{00B1}" + magnitude }
        return (negative ? "\u{2212}" : "+") + magnitude
    }
}
