import MeasurementEvents

/// One row of the completeness table (Migrations/0020_date_completeness.sql): the kind and reason of a loss and the
/// UTC day it happened on. Both backends count losses under it.
///
/// ```swift
/// CompletenessKey(.bufferFull, at: 1763683200123)   // dropped, buffer_full, day 1763683200000
/// ```
package struct CompletenessKey: Hashable, Sendable, Comparable {
    /// `dropped`, `rejected` or `altered` (``MeasurementEvents/DropReason/completenessKind``).
    package var kind: String
    /// The ``MeasurementEvents/DropReason`` name.
    package var reason: String
    /// The start of the UTC day of the loss, ms since the Unix epoch.
    package var day: Int64

    /// The row of a loss of `kind` and `reason` on the UTC day that begins at `day`.
    package init(kind: String, reason: String, day: Int64) {
        self.kind = kind
        self.reason = reason
        self.day = day
    }

    /// The row of a loss for `reason` at the instant `milliseconds` (its kind is the reason's).
    package init(_ reason: DropReason, at milliseconds: Int64) {
        self.init(
            kind: reason.completenessKind, reason: reason.rawValue, day: EventTime.utcDayStart(of: milliseconds))
    }

    /// Ordered by kind, reason, then day: the order every writer upserts its rows in.
    package static func < (lhs: CompletenessKey, rhs: CompletenessKey) -> Bool {
        (lhs.kind, lhs.reason, lhs.day) < (rhs.kind, rhs.reason, rhs.day)
    }
}

extension Dictionary where Key == CompletenessKey, Value == Int {
    /// Adds `losses`, counted at the instant `milliseconds`, to these counts.
    package mutating func add(_ losses: [DropReason: Int], at milliseconds: Int64) {
        for (reason, count) in losses where count > 0 {
            self[CompletenessKey(reason, at: milliseconds), default: 0] += count
        }
    }
}
