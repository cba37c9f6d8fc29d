import EventStoreInterface
import MeasurementEvents

/// A backend's own form of the events an ingest reads, made on the ingest's reader thread (``IngestPipeline``), so
/// that the writers only send them: the SQLite store's rows are its encoded columns, the PostgreSQL store's the lines
/// of its `COPY`, written from the NDJSON bytes; ``DecodedEvents`` are the events themselves, for any other backend.
///
/// Rows keep the order of their events: of two events with one id, the writer keeps the first.
package protocol IngestRows: Sendable {
    /// How many events the rows hold.
    var count: Int { get }

    /// Appends the event of a line read in place; `false` when these rows do not take it from its bytes, and then
    /// they are as they were (the reader decodes the line and appends its event, or its error). A line taken gives
    /// the rows what ``append(_:)-(MeasurementEvent)`` of its decoded event would. The line's bytes are valid only
    /// during the call: rows keep copies, never the line's pointers.
    mutating func append(_ line: FlatLine) -> Bool

    /// Appends an event as decoded (not redacted: the backend redacts what it writes).
    mutating func append(_ event: MeasurementEvent)

    /// Whether these rows may take a line read in place (``append(_:)-(FlatLine)``): when not, the reader decodes
    /// every line instead of scanning it first.
    var takesFlatLines: Bool { get }

    /// Does the rows' work per batch (the SQLite store encodes its events) once the batch holds all its events; a
    /// second call does nothing. The reader calls it on batches it would otherwise wait to queue (``IngestPipeline``),
    /// so that the two threads share the work; a consumer whose rows do work there calls it on every batch it takes
    /// (the SQLite ingest does; the generic ingest's rows have nothing to do).
    mutating func seal()
}

extension IngestRows {
    package var takesFlatLines: Bool { true }
    package mutating func seal() {}
}

/// The events themselves as an ingest's rows: what the generic ingest of a backend without rows of its own reads
/// lines into (decoded, not redacted: the backend's write redacts them).
package struct DecodedEvents: IngestRows {
    /// The events, in the order of their lines.
    package var events: [MeasurementEvent] = []

    /// No events yet, with room for `capacity`.
    package init(capacity: Int) {
        events.reserveCapacity(capacity)
    }

    package var count: Int { events.count }
    /// Every line is decoded: there is nothing to gain from reading one in place.
    package var takesFlatLines: Bool { false }
    package mutating func append(_ line: FlatLine) -> Bool { false }
    package mutating func append(_ event: MeasurementEvent) { events.append(event) }
}

/// A backend that takes an ingest's events as its own rows (``IngestRows``) instead of as events.
package protocol IngestRowWriter: EventBackend {
    /// The rows this backend makes and writes: it gets back exactly the rows it made, which the compiler checks.
    associatedtype Rows: IngestRows
    /// The open transaction of a strict ingest, which writes these rows.
    associatedtype Transaction: IngestRowTransaction<Rows>

    /// Empty rows for the events of one of the reader's batches.
    func makeIngestRows() -> Rows

    /// ``EventBackend/writeBatches(_:losses:after:claimed:)`` of the events in `rows` (made by ``makeIngestRows()``),
    /// in their order.
    /// - Returns: how many events were new.
    /// - Throws: ``StoreError`` when the transaction could not be committed; then nothing of the call is stored.
    func writeRows(
        _ rows: [Rows], losses: [DropReason: Int], after previous: WriteTurn?, claimed: WriteTurn
    ) async throws(StoreError) -> Int

    /// Runs `body` with one transaction open on one connection, and commits it when `body` returns `true`, rolls it
    /// back when it returns `false` or throws: a strict ingest (``IngestOptions/strict``), which stores a whole input
    /// or nothing, writes it chunk by chunk into that transaction instead of holding every row until the end.
    /// - Returns: whether the transaction was committed.
    /// - Throws: what `body` threw, as it was, or ``StoreError`` when the transaction could not be opened or
    ///   committed; nothing of it is stored then.
    func inOneTransaction(_ body: (Transaction) async throws -> Bool) async throws -> Bool

    /// Brings what the ingest's writes left for later up to date, once they are all committed, so that the ingest
    /// returns with its events as quick to read as the rest (PostgreSQL: the summaries of the time index's new
    /// ranges).
    /// - Throws: ``StoreError`` when it could not be done; the events stay stored, and the ingest reports it in
    ///   ``IngestSummary/unfinished`` without failing.
    func finishIngest() async throws(StoreError)
}

/// The open transaction of a strict ingest (``IngestRowWriter/inOneTransaction(_:)``): every write goes into it, and
/// none is seen by anyone else before it commits.
package protocol IngestRowTransaction<Rows>: AnyObject {
    /// The rows it writes: its backend's.
    associatedtype Rows: IngestRows

    /// Writes the events of `rows` (made by ``IngestRowWriter/makeIngestRows()``), in their order, and adds `losses`
    /// to completeness, inside the open transaction. An id stored before, or earlier in the transaction, is a
    /// duplicate.
    /// - Returns: how many events were new.
    /// - Throws: ``StoreError`` when the server refused or could not be reached; the transaction is then rolled back
    ///   whole.
    func write(_ rows: [Rows], losses: [DropReason: Int]) async throws(StoreError) -> Int
}
