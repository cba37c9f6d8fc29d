extension Duration {
    /// The duration in seconds, fractions included: for the APIs that take a `TimeInterval`.
    ///
    /// ```swift
    /// request.timeoutInterval = Duration.milliseconds(1_500).inSeconds   // 1.5
    /// ```
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in milliseconds, fractions included: for a log line or a metric.
    ///
    /// ```swift
    /// Duration.microseconds(2_500).inMilliseconds   // 2.5
    /// ```
    package var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(attoseconds) / 1e15 + Double(seconds) * 1e3
    }

    /// The duration in whole milliseconds, the fraction dropped (toward zero). Traps past `Int64` (about
    /// 292 million years), as any arithmetic overflow does; ``saturatingMilliseconds`` never traps.
    ///
    /// ```swift
    /// Duration.seconds(2).wholeMilliseconds   // 2_000
    /// ```
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// The duration in whole milliseconds, the fraction dropped: 0 for a negative duration, `Int64.max` past it.
    ///
    /// ```swift
    /// Duration.seconds(-1).saturatingMilliseconds   // 0
    /// ```
    package var saturatingMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        if overflow { return .max }
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return carry ? .max : total
    }
}
