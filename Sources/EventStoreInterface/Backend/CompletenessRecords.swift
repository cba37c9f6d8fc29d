/// The completeness table row by row, on either backend: what `alstats backup` copies and `alstats restore` puts
/// back, so that a copy's report counts the same losses as the original's (docs/cli.md, "alstats backup").
///
/// ```swift
/// let rows = try await original.completenessRows()
/// try await copy.restoreCompleteness(rows)
/// ```
public protocol CompletenessRecords: AnyObject, Sendable {
    /// Every row of the store's completeness table (its own losses; not a device file's `upload_completeness`), by
    /// kind, reason and day.
    /// - Throws: ``StoreError`` when the database cannot be read.
    func completenessRows() async throws(StoreError) -> [CompletenessRow]

    /// Restores `rows` in one transaction: each row's count becomes the larger of the stored count and the row's,
    /// so that restoring a backup into an empty store copies it exactly, and restoring it again changes nothing.
    /// - Throws: ``StoreError``; then nothing was restored.
    func restoreCompleteness(_ rows: [CompletenessRow]) async throws(StoreError)
}

/// One row of the completeness table: how many events were lost for a kind and reason on one UTC day.
public struct CompletenessRow: Sendable, Hashable {
    /// `dropped`, `rejected` or `altered`.
    public var kind: String
    /// The reason: `buffer_full`, `invalid_event:bad_json`, `device:outbox_full`, ...
    public var reason: String
    /// The start of the UTC day of the losses, ms since the Unix epoch.
    public var day: Int64
    /// How many events.
    public var count: Int

    /// A row of `count` events lost for `kind` and `reason` on the UTC day that starts at `day`.
    public init(kind: String, reason: String, day: Int64, count: Int) {
        self.kind = kind
        self.reason = reason
        self.day = day
        self.count = count
    }
}
