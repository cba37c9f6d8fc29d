import EventStoreInterface
import Foundation
import MeasurementEvents
import SQLiteSupport

/// A sink that stores the bus's events in the SQLite database, durably, in batches.
///
/// It owns one writer connection (WAL, `synchronous=NORMAL`, a busy timeout). ``write(_:)`` inserts
/// redacted events inside an open transaction, skipping ids already stored; ``commit()`` upserts the
/// batch's rollups and commits, so a batch is all-or-nothing and readers (`sqlite3`, the report) see
/// whole batches while it writes. The bus commits every ``SinkCommitPolicy/maximumEvents`` events or
/// ``SinkCommitPolicy/maximumDelay``, and on ``MeasurementEventBus/flush()``; losses it reports are
/// persisted in the `completeness` table.
///
/// ```swift
/// let bus = MeasurementEventBus()
/// let sink = try SQLiteEventSink(path: "alstats.sqlite")
/// bus.attach(sink)
/// bus.post(EventName.navOut, fields: [FieldName.success: "1", FieldName.type: "app"])
/// bus.flush()      // returns once the event is committed
/// bus.close()      // commits, then closes the sink
/// ```
public final class SQLiteEventSink: EventSink, @unchecked Sendable {
    // @unchecked Sendable: the bus calls a sink from one thread at a time; `lock` makes that so for any
    // other caller too, and the writer is only touched inside it.

    /// When the bus commits a batch.
    public let commitPolicy: SinkCommitPolicy
    /// The database file.
    public let path: String

    private let lock = StateLock(())
    private var writer: EventWriter?
    private var insertedCount = 0

    /// Opens (creating and migrating when needed) the database at `path`.
    /// - Parameters:
    ///   - path: the database file.
    ///   - commitPolicy: batch size and latency; by default 32,768 events or 250 ms (each commit also upserts
    ///     every rollup group its events touched, so larger batches upsert fewer groups per event).
    ///   - options: how the store is opened, including the ``Redactor`` applied to every event.
    /// - Throws: ``StoreError`` when the file cannot be used (see ``SQLiteEventStore/init(path:options:)``).
    public init(
        path: String,
        commitPolicy: SinkCommitPolicy = SinkCommitPolicy(maximumEvents: 32_768, maximumDelay: .milliseconds(250)),
        options: SQLiteEventStore.Options = SQLiteEventStore.Options()
    ) throws(StoreError) {
        self.path = path
        self.commitPolicy = commitPolicy
        let writer: EventWriter
        do throws(SQLiteError) {
            let connection = try SQLiteEventStore.openChecked(path: path, options: options)
            writer = try EventWriter(connection: connection, redactor: options.redactor, clock: options.clock)
        } catch {
            throw StoreError(error)
        }
        writer.packsFields = options.packFields
        self.writer = writer
    }

    /// How many events this sink has stored (duplicates of stored ids not counted), committed or not.
    public var inserted: Int {
        lock.withLock { _ in insertedCount }
    }

    /// Inserts redacted events inside the open transaction, all of them or (on error) none.
    /// - Throws: ``StoreError``; then none of `events` is stored.
    public func write(_ events: [MeasurementEvent]) throws(StoreError) {
        try locked { () throws(SQLiteError) in
            let inserted = try openWriter().write(events)
            insertedCount += inserted
        }
    }

    /// Upserts the batch's rollups and commits it.
    /// - Throws: ``StoreError``; then the batch is rolled back.
    public func commit() throws(StoreError) {
        try locked { () throws(SQLiteError) in try openWriter().commit() }
    }

    /// Adds the bus's losses to the `completeness` table.
    /// - Throws: ``StoreError``; then nothing is counted.
    public func recordLosses(_ losses: [DropReason: Int]) throws(StoreError) {
        try locked { () throws(SQLiteError) in
            try openWriter().recordLosses(losses)
        }
    }

    /// Commits what is pending and closes the connection (the WAL is checkpointed into the file).
    /// - Throws: ``StoreError`` when what was pending could not be committed.
    public func close() throws(StoreError) {
        try locked { () throws(SQLiteError) in
            guard let writer else { return }
            defer { self.writer = nil }
            try writer.commit()
            try? writer.connection.execute("PRAGMA optimize")
        }
    }

    /// Runs `body` under the sink's lock, giving SQLite's failure as the store's.
    private func locked(_ body: () throws(SQLiteError) -> Void) throws(StoreError) {
        do throws(SQLiteError) {
            try lock.withLock { _ throws(SQLiteError) in try body() }
        } catch {
            throw StoreError(error)
        }
    }

    private func openWriter() throws(SQLiteError) -> EventWriter {
        guard let writer else {
            throw SQLiteError(.io, path: path, "the sink for \(path) is closed: attach a new SQLiteEventSink")
        }
        return writer
    }
}
