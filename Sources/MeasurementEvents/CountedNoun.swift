extension String {
    /// A count and its noun in the right number, for the messages people read: the noun as given for 1, else its
    /// plural (`plural`, or the noun with an `s`). The one way the CLI, the server and the report count things.
    ///
    /// ```swift
    /// String(counting: 1, "event")                      // "1 event"
    /// String(counting: 2, "new event")                  // "2 new events"
    /// String(counting: 0, "entry", plural: "entries")   // "0 entries"
    /// ```
    /// - Parameters:
    ///   - count: how many.
    ///   - noun: the noun (or a phrase ending in one) for one thing.
    ///   - plural: the noun for any other count, when adding an `s` does not make it.
    public init(counting count: some BinaryInteger, _ noun: String, plural: String? = nil) {
        self = "\(count) " + noun.pluralized(for: count, plural: plural)
    }

    /// This noun in the number of `count`, for a count written some other way (with digit grouping, say): itself for
    /// 1, else `plural` or itself with an `s`.
    ///
    /// ```swift
    /// "1,204 " + "event".pluralized(for: 1_204)   // "1,204 events"
    /// ```
    public func pluralized(for count: some BinaryInteger, plural: String? = nil) -> String {
        count == 1 ? self : plural ?? self + "s"
    }
}
