/// How long raw events are kept: `alstats prune --keep 90d`, the `retention` setting of `alstats serve`. Written as
/// a whole number of hours (`12h`), days (`90d`) or weeks (`52w`), at least an hour.
///
/// The cut-off it gives is the start of a UTC day (``cutoff(now:)``): every 15-minute bucket and UTC day of the
/// rollups then lies wholly on one side of it, so that a report of whole buckets reads the same rows before and
/// after a prune. A prune therefore keeps at least the period, and up to a day more.
///
/// ```swift
/// let keep = RetentionPeriod("90d")!
/// keep.cutoff(now: 1_763_683_200_000)   // 2025-08-23T00:00:00Z, the day start 90 days before 2025-11-21
/// ```
public struct RetentionPeriod: Sendable, Hashable, CustomStringConvertible {
    /// The period in milliseconds.
    public let milliseconds: Int64
    /// As written (`90d`).
    public let description: String

    /// A UTC day in milliseconds.
    public static let day: Int64 = 86_400_000

    /// The period `text` gives (`12h`, `90d`, `52w`), or `nil` when it is not a whole number of hours, days or
    /// weeks, or is shorter than an hour or longer than 100 years.
    public init?(_ text: String) {
        let units: [Character: Int64] = ["h": 3_600_000, "d": Self.day, "w": 7 * Self.day]
        guard let unit = text.last.flatMap({ units[$0] }), let number = Int64(text.dropLast()), number >= 1,
            number <= 36_500 * Self.day / unit
        else { return nil }
        milliseconds = number * unit
        description = text
    }

    /// The cut-off of a prune at `now` (ms since the Unix epoch): the start of the UTC day that holds
    /// `now - period`.
    public func cutoff(now: Int64) -> Int64 {
        Self.dayStart(of: now - milliseconds)
    }

    /// The start of the UTC day that holds `milliseconds`.
    public static func dayStart(of milliseconds: Int64) -> Int64 {
        milliseconds - ((milliseconds % day) + day) % day
    }

    /// When the cut-off of this period next moves, from `now`: a UTC day after the cut-off, plus the period.
    public func nextCutoffChange(after now: Int64) -> Int64 {
        cutoff(now: now) + Self.day + milliseconds
    }
}
