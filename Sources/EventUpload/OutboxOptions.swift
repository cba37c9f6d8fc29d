import MeasurementEvents

/// How an ``HTTPEventSink`` keeps its outbox: what is redacted before an event is kept, how hard a commit works
/// to survive a crash, and how long it waits for another connection's lock.
///
/// ```swift
/// var options = OutboxOptions()
/// options.durability = .full   // every commit on disk before the bus goes on, against power loss too
/// let sink = try HTTPEventSink(.init(collector: url, writeKey: key, outboxPath: path, outboxOptions: options))
/// ```
public struct OutboxOptions: Sendable {
    /// How hard a commit to the outbox works to survive a crash (`PRAGMA synchronous` of its WAL database).
    public enum Durability: String, Sendable, CaseIterable {
        /// `synchronous=NORMAL` (the default): a commit survives a killed app, and may be lost with the last
        /// moments before a power cut.
        case normal
        /// `synchronous=FULL`: every commit is on disk before it returns, against power loss too, at the cost of
        /// a sync per commit.
        case full
    }

    /// The redactor applied to every event before its line is kept in the outbox (the default secret keys).
    public var redactor: Redactor
    /// How hard a commit works to survive a crash (``Durability/normal`` by default).
    public var durability: Durability
    /// How long a statement waits for another connection's lock on the file (5 s by default): the app's own
    /// alstats store, or a second process on the same outbox.
    public var busyTimeout: Duration

    /// Creates options; the defaults redact the default secret keys, commit with `synchronous=NORMAL` and wait
    /// 5 s for locks.
    /// - Parameters:
    ///   - redactor: applied to every event before it is kept.
    ///   - durability: how hard a commit works to survive a crash.
    ///   - busyTimeout: how long a statement waits for another connection's lock.
    public init(
        redactor: Redactor = Redactor(), durability: Durability = .normal, busyTimeout: Duration = .seconds(5)
    ) {
        self.redactor = redactor
        self.durability = durability
        self.busyTimeout = busyTimeout
    }
}
