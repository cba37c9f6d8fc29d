import MeasurementEvents

/// A store of events that the server, the report and the CLI write to and read from, whatever the database:
/// the SQLite store (EventStoreSQLite's `SQLiteEventStore`, one file) or a PostgreSQL server (EventStorePostgres's
/// `PostgresEventStore`). The hosted links are kept through ``LinkStore``, the report is read through
/// ``ReportSource``, and an NDJSON file is ingested through EventIngest; StoreOpening opens a backend with all of
/// them for a location.
///
/// Every method has the semantics of the SQLite store's method of the same name; both backends give the same
/// answers for the same calls. The methods are `async` because a database server is reached over the network;
/// the SQLite store answers them synchronously (callers that must keep SQLite off a thread pool run it on a
/// thread of their own). ``close()`` a backend when done.
///
/// ```swift
/// let backend: any EventBackend = try SQLiteEventStore(path: "alstats.sqlite")
/// let stored = try await backend.writeBatches([requestA, requestB], losses: [:])
/// print(try await backend.count(), try await backend.completeness())
/// try await backend.close()
/// ```
public protocol EventBackend: AnyObject, Sendable {
    /// A request's events as ``prepare(_:)`` makes them for ``writePrepared(_:losses:)``: the backend gets back
    /// exactly what it made, which the compiler checks. ``UnpreparedEvents`` for a backend whose write does all the
    /// work.
    associatedtype Prepared: PreparedEvents = UnpreparedEvents

    /// Where the backend stores, for messages (a file path, or a database URL without its password).
    var location: String { get }

    /// The schema version of the database (the latest migration applied).
    /// - Throws: ``StoreError`` when the database cannot be read.
    var schemaVersion: Int { get async throws(StoreError) }

    /// Writes the event batches of several requests in one transaction (group commit) and counts, per batch,
    /// the events newly stored. Each batch is redacted; an id already stored (earlier, in an earlier batch of
    /// the call, or earlier in the same batch) is a duplicate, acknowledged and not stored twice. `losses`
    /// go into completeness in the same transaction: a failed call stores nothing and counts nothing.
    /// - Parameters:
    ///   - batches: the events of each request, in the order the answers come back.
    ///   - losses: rejection counts to add to completeness, by reason.
    /// - Returns: for each batch, in order, how many of its events were new.
    /// - Throws: ``StoreError`` when the transaction could not be committed; then nothing of the call is stored.
    func writeBatches(_ batches: [[MeasurementEvent]], losses: [DropReason: Int]) async throws(StoreError) -> [Int]

    /// ``writeBatches(_:losses:)`` as one of a line of overlapping writes (the generic ingest keeps two in
    /// flight): the call may prepare its events at once, claims its ids only after `previous` is open, and opens
    /// `claimed` once its ids are claimed, or when it ends without claiming (a failure included). Each call is
    /// still one transaction; of two calls holding the same id, the earlier in the line keeps it.
    ///
    /// A backend that does not overlap its writes keeps the default: wait for `previous`, write, then open
    /// `claimed`.
    /// - Returns: for each batch, in order, how many of its events were new.
    /// - Throws: ``StoreError`` when the transaction could not be committed; then nothing of the call is stored.
    func writeBatches(
        _ batches: [[MeasurementEvent]], losses: [DropReason: Int], after previous: WriteTurn?, claimed: WriteTurn
    ) async throws(StoreError) -> [Int]

    /// Prepares a request's events for ``writePrepared(_:losses:)`` without touching the database: call it on the
    /// request's own task, so that this work runs on every core while the one writer writes. A backend whose write
    /// does all the work keeps the default, which prepares nothing (``UnpreparedEvents``).
    func prepare(_ events: [MeasurementEvent]) -> Prepared

    /// ``prepare(_:)`` of a request's decoded `events` (each at its place in `positions`) and of its `lines` read in
    /// place, which take the other places: what ``prepare(_:)`` of all its events in order makes. The default
    /// decodes the lines; a backend that encodes a line from its bytes does so instead.
    func prepare(_ events: [MeasurementEvent], positions: [Int32], lines: ScannedLines) -> Prepared

    /// ``writeBatches(_:losses:)`` of events made by this backend's ``prepare(_:)`` (one value per request, in the
    /// order the answers come back): one transaction, duplicates acknowledged and not stored twice, `losses` counted
    /// in the same transaction. The default writes the events of ``UnpreparedEvents``.
    /// - Returns: for each prepared value, in order, how many of its events were new.
    /// - Throws: ``StoreError`` when the transaction could not be committed; then nothing of the call is stored.
    func writePrepared(_ batches: [Prepared], losses: [DropReason: Int]) async throws(StoreError) -> [Int]

    /// Writes `events` (redacted) in one transaction; an id already stored is skipped.
    /// - Returns: how many events were new.
    /// - Throws: ``StoreError``; then none of `events` is stored.
    @discardableResult
    func write(_ events: [MeasurementEvent]) async throws(StoreError) -> Int

    /// Adds loss counts to the completeness table, in a transaction of their own.
    /// - Throws: ``StoreError``; then nothing is counted.
    func recordLosses(_ losses: [DropReason: Int]) async throws(StoreError)

    /// The completeness counts, keyed by kind (`dropped`, `rejected`) and reason.
    /// - Throws: ``StoreError`` when the database cannot be read.
    func completeness() async throws(StoreError) -> [String: [String: Int]]

    /// The number of stored events.
    /// - Throws: ``StoreError`` when the database cannot be read.
    func count() async throws(StoreError) -> Int

    /// Recomputes every rollup (the report's and the hosted links funnel's) from the raw events, in one
    /// transaction.
    /// - Throws: ``StoreError``; then the rollups are as they were.
    func rebuildRollups() async throws(StoreError)

    /// Calls `body` with each stored event with `since <= timestamp < until`, in export order (time, then
    /// arrival), the order `alstats export` writes.
    /// - Throws: ``StoreError`` when the database cannot be read, or what `body` threw (which ends the walk).
    func forEachEvent(since: Int64, until: Int64, _ body: (MeasurementEvent) throws -> Void) async throws

    /// Work a long-running writer asks for every so often, off its write path: what the backend leaves for later
    /// while writes come in, and what would otherwise stay undone under load. `alstats serve` calls it every 30 s
    /// (`EventServerConfiguration.upkeepInterval`); a program of your own that writes continuously should too.
    /// PostgreSQL summarises the ranges of the time index that its writes filled (autovacuum drops its requests
    /// for them when ranges fill faster than it visits); SQLite has nothing to do (every write keeps its indexes
    /// whole).
    /// - Returns: ``UpkeepOutcome/done``, or ``UpkeepOutcome/deferred(_:)`` when part of it was left for the next
    ///   call because another session held what it needs (a lock); that is no failure.
    /// - Throws: ``StoreError`` when it could not be done; what was left stays for the next call, and no stored
    ///   event is affected.
    @discardableResult
    func upkeep() async throws(StoreError) -> UpkeepOutcome

    /// Finishes with the backend: commits what it holds and releases what outlives the object (a server
    /// backend's connections). Call it once, last; a call after it may fail.
    /// - Throws: ``StoreError`` when what was held could not be committed.
    func close() async throws(StoreError)
}

extension EventBackend {
    /// Nothing: a backend that leaves no work for later. A conformer whose `upkeep()` returns nothing (as the
    /// requirement did before it returned ``UpkeepOutcome``) still compiles, but no longer implements it: this
    /// default is called instead, so it must return an ``UpkeepOutcome``.
    @discardableResult
    public func upkeep() async throws(StoreError) -> UpkeepOutcome { .done }

    /// Decodes `lines` and prepares them with `events`, in the request's order.
    public func prepare(_ events: [MeasurementEvent], positions: [Int32], lines: ScannedLines) -> Prepared {
        prepare(lines.merged(with: events, positions: positions))
    }

    /// Waits for `previous`, writes, then opens `claimed` (whether the write succeeded or not).
    public func writeBatches(
        _ batches: [[MeasurementEvent]], losses: [DropReason: Int], after previous: WriteTurn?, claimed: WriteTurn
    ) async throws(StoreError) -> [Int] {
        await previous?.wait()
        return try await claimed.opening { () async throws(StoreError) in
            try await writeBatches(batches, losses: losses)
        }
    }
}

extension EventBackend where Prepared == UnpreparedEvents {
    /// Prepares nothing: the events are written as they are, and the backend's write redacts them.
    public func prepare(_ events: [MeasurementEvent]) -> UnpreparedEvents {
        UnpreparedEvents(events)
    }

    /// ``writeBatches(_:losses:)`` of the events of each ``UnpreparedEvents``.
    public func writePrepared(
        _ batches: [UnpreparedEvents], losses: [DropReason: Int]
    ) async throws(StoreError) -> [Int] {
        try await writeBatches(batches.map(\.events), losses: losses)
    }
}

/// What a call of ``EventBackend/upkeep()`` did.
public enum UpkeepOutcome: Sendable, Equatable {
    /// Everything due was done, or nothing was due.
    case done
    /// Part of it was left for the next call, because another session held what it needs: why, for a log line.
    case deferred(String)
}
