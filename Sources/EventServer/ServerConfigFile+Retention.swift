import EventStoreInterface

extension ServerConfigFile {
    /// The `retention` member of the file (docs/collector.md, "Retention"): how long raw events are kept, as
    /// `alstats prune --keep` takes it (`"90d"`, `"52w"`, `"12h"`); `nil` when the file has none (they are kept for
    /// ever).
    ///
    /// ```swift
    /// // {"write_keys": ["..."], "retention": "90d"}
    /// let keep = try ServerConfigFile.read("serve.json").retention()   // 90 days
    /// ```
    /// - Throws: ``EventServerError`` (configuration) when the member is not such a window.
    public func retention() throws(EventServerError) -> RetentionPeriod? {
        guard let member = object["retention"], member != .null else { return nil }
        guard let text = member.stringValue, let period = RetentionPeriod(text) else {
            throw .configuration(
                "\"retention\" in \(path) must be a whole number of hours, days or weeks such as \"90d\", \"52w\" or "
                    + "\"12h\" (at least 1h)")
        }
        return period
    }
}
