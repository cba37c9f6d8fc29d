import EventStoreInterface
import MeasurementEvents

extension HTMLRenderer {
    /// With a comparison, the alerts at the top of the page (docs/dashboard.md): one sentence per cause, most
    /// costly first, the alerts it explains in a list under it; on the dashboard each slice links to the view
    /// filtered to it. A calm note when there are none; nothing without a comparison.
    func alerts(_ report: Report) -> [String] {
        guard let alerts = report.alerts else { return [] }
        guard !alerts.isEmpty else {
            return [
                "<section class=\"alerts calm\" id=\"alerts\" aria-label=\"Alerts\">",
                "<h2>No alerts</h2>",
                "<p class=\"note\">No source host, ref or hosted link fell significantly against the previous period.</p>",
                "</section>",
            ]
        }
        var lines = [
            "<section class=\"alerts\" id=\"alerts\" aria-label=\"Alerts\">",
            "<h2>\(alerts.count == 1 ? "1 alert" : "\(alerts.count) alerts"): success fell against the previous period</h2>",
            "<ul class=\"causes\">",
        ]
        for cause in alerts {
            guard !cause.explains.isEmpty else {
                lines.append("<li class=\"cause\">" + alertItem(cause) + "</li>")
                continue
            }
            let count = cause.explains.count
            lines.append("<li class=\"cause\">" + alertItem(cause))
            lines.append(
                "<p class=\"explains\">It explains \(count == 1 ? "1 more alert" : "\(count) more alerts"), "
                    + "which no longer fall without its navigations:</p>")
            lines.append("<ul class=\"explained\">")
            lines += cause.explains.map { "<li class=\"explained\">" + alertItem($0) + "</li>" }
            lines += ["</ul>", "</li>"]
        }
        lines += ["</ul>", "</section>"]
        return lines
    }

    /// One alert's slice (on the dashboard a link to the view filtered to it) and its sentence, escaped.
    private func alertItem(_ alert: Report.Alert) -> String {
        var slice = alert.sliceDescription.htmlEscaped
        if let view, let dimension = HTMLRenderer.filterDimension(alert.dimension), let value = alert.value {
            slice = "<a class=\"filter\" href=\"\(view.adding(dimension, value).href().htmlEscaped)\">\(slice)</a>"
        }
        return slice + ": " + alert.summary.htmlEscaped
    }

    /// The dashboard filter of an alert's dimension; `nil` for `all`.
    static func filterDimension(_ dimension: Report.Alert.Dimension) -> DashboardView.Dimension? {
        switch dimension {
        case .all: nil
        case .sourceHost: .sourceHost
        case .ref: .ref
        case .link: .link
        }
    }

    /// The change line of each headline card (events, arrivals, outbound, returns), in the order of
    /// ``summary(_:)``; empty without a comparison. The number itself stays the card's own element.
    func cardChanges(_ report: Report) -> [String] {
        guard let previous = report.previous else { return [] }
        let pairs: [(now: Int, before: Int, rate: (Double?, Double?)?)] = [
            (report.totals.events, previous.totals.events, nil),
            (
                report.totals.byName[EventName.navIn, default: 0], previous.totals.byName[EventName.navIn, default: 0],
                nil
            ),
            (
                report.navigation.attempts, previous.navigation.attempts,
                (report.navigation.successRate, previous.navigation.successRate)
            ),
            (
                report.backNavigation.attempts, previous.backNavigation.attempts,
                (report.backNavigation.successRate, previous.backNavigation.successRate)
            ),
        ]
        return pairs.map { pair in
            var text = ReportChange.percentChange(pair.now, pair.before) + " vs \(ReportText.count(pair.before))"
            // The colour is the change as written: a change that rounds to zero is neutral. The success rate's
            // change decides when it has one; else the count's.
            var sign = ReportChange.shownSign(pair.now, pair.before)
            if let (now, before) = pair.rate, let now, let before {
                text += "; success " + ReportChange.points(now, before)
                let rate = ReportChange.shownSign(now, before)
                if rate != 0 { sign = rate }
            }
            let direction = sign > 0 ? "up" : sign < 0 ? "down" : ""
            return "<span class=\"delta \(direction)\">\(text.htmlEscaped)</span>"
        }
    }
}
