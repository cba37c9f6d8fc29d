extension Report {
    /// `part / whole`, `nil` when `whole` is 0: the one definition of every rate and share in the report.
    static func rate(_ part: Int, of whole: Int) -> Double? {
        whole == 0 ? nil : Double(part) / Double(whole)
    }
}

extension Report.Navigation {
    /// The share of attempts whose `type` is `type` (`app`, `web`, `fail`), `nil` without attempts.
    public func share(ofType type: String) -> Double? {
        Report.rate(byType[type, default: 0], of: attempts)
    }
}

extension Report.SourceHost {
    /// `succeeded / attempts`, `nil` without attempts.
    public var successRate: Double? { Report.rate(succeeded, of: attempts) }
}
