/// A store that imports NDJSON files as `alstats ingest` does: lines read, stored, duplicates, invalid lines and
/// losses by reason counted in the summary and in completeness. The SQLite store has a tuned ingest of its own;
/// PostgreSQL's is the generic ingest (``EventBackend/ingestNDJSON(_:options:onInvalidLine:progress:)``) with its
/// `COPY` rows. StoreOpening's `OpenedStore.ingester` is the one of an opened store.
///
/// ```swift
/// let summary = try await store.ingester.ingest(
///     [IngestInput(path: "events.ndjson")], options: IngestOptions(), onInvalidLine: { print($0) }, progress: nil)
/// ```
public protocol NDJSONIngester: AnyObject, Sendable {
    /// Imports the NDJSON events of `inputs`.
    /// - Parameters:
    ///   - onInvalidLine: called with each invalid line as `file:line: reason`, in input order.
    ///   - progress: called about every 65,536 lines with the summary so far, and once at the end.
    /// - Throws: ``IngestError`` for a missing or unreadable input, `StoreError` for the database; the chunks
    ///   written before stay stored (an ingest re-run stores the rest, without duplicates).
    func ingest(
        _ inputs: [IngestInput], options: IngestOptions, onInvalidLine: (IngestError) -> Void,
        progress: ((IngestSummary) -> Void)?
    ) async throws -> IngestSummary
}
