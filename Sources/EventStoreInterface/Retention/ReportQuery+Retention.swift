extension ReportQuery {
    /// The length of a rollup bucket: 15 minutes.
    public static let bucketMilliseconds: Int64 = 900_000

    /// The query a store reads once raw events before `rawEventsSince` are gone (docs/cli.md, "Retention"): a
    /// window edge before it that falls inside a 15-minute bucket moves to that bucket's start, where the rollups
    /// answer for the whole bucket; the raw events the edge would have needed are deleted. Every other edge, and
    /// every query of a store never pruned (`nil`), stays as it is.
    ///
    /// ```swift
    /// // raw events since 2025-08-01; a window from 2025-05-03T10:07Z reads from 10:00Z
    /// let read = ReportQuery(since: may3At1007).alignedToBuckets(before: august1)
    /// ```
    public func alignedToBuckets(before rawEventsSince: Int64?) -> ReportQuery {
        guard let rawEventsSince else { return self }
        var aligned = self
        aligned.since = since.map { Self.aligned($0, before: rawEventsSince) }
        aligned.until = until.map { Self.aligned($0, before: rawEventsSince) }
        return aligned
    }

    /// `edge` moved to the start of its bucket when it lies before `horizon`.
    private static func aligned(_ edge: Int64, before horizon: Int64) -> Int64 {
        guard edge < horizon else { return edge }
        return edge - ((edge % bucketMilliseconds) + bucketMilliseconds) % bucketMilliseconds
    }
}
