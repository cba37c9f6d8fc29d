import MeasurementEvents

extension Report.Alert {
    /// The slice in words: `source host shop.example.com`, `ref feed`, `hosted link invite`,
    /// `all outbound navigations` (`(none)` for the slice of the events without the field); control characters of
    /// the value written out (``TerminalText/printable(_:)``).
    public var sliceDescription: String { sliceDescription(quoting: TerminalText.printable) }

    /// What fell, by how much, over how many attempts, and the failure that grew: `outbound success 43.0%, was
    /// 100.0% (−57.0 pp), 1,004 attempts (1,049 before); top failure: open_failed, 572 (0 before)`.
    public var summary: String { summary(quoting: TerminalText.printable) }

    /// ``sliceDescription`` with the slice's value written by `quote` (a chat message puts it in a code span, where
    /// a value a client sent cannot mention anyone or make a link).
    public func sliceDescription(quoting quote: (String) -> String) -> String {
        let value = value.map(quote) ?? ReportText.none
        switch dimension {
        case .all: return "all outbound navigations"
        case .sourceHost: return "source host " + value
        case .ref: return "ref " + value
        case .link: return "hosted link " + value
        }
    }

    /// ``summary`` with the top failure's error written by `quote`.
    public func summary(quoting quote: (String) -> String) -> String {
        let n = ReportText.count
        let p = ReportText.percent
        let what = measure == .openRate ? "arrival rate" : "outbound success"
        var sentence =
            "\(what) \(p(now.rate)), was \(p(before.rate)) (\(ReportChange.points(now.rate, before.rate))), "
            + "\(n(now.attempts)) \(measure == .openRate ? "hits" : "attempts") (\(n(before.attempts)) before)"
        if let failure = topFailure {
            let error = failure.error.map(quote) ?? ReportText.none
            sentence += "; top failure: \(error), \(n(failure.now)) (\(n(failure.before)) before)"
        }
        return sentence
    }
}
