import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// The SQLite store is the first ``EventBackend``: its synchronous methods answer the protocol's `async` ones
/// (they run on the caller's thread, under the store's lock, and never suspend).
extension SQLiteEventStore: EventBackend {
    /// The database file.
    public var location: String { path }

    /// Commits any batch the writer holds and lets SQLite refresh its query statistics (`PRAGMA optimize`).
    /// The file itself is closed when the last reference to the store goes.
    /// - Throws: ``StoreError`` when the held batch could not be committed.
    public func close() throws(StoreError) {
        try withStore { store throws(SQLiteError) in
            if store.writer.inTransaction { try store.writer.commit() }
            try? store.connection.execute("PRAGMA optimize")
        }
    }
}

extension EncodedEvents: PreparedEvents {}

extension SQLiteEventStore {
    /// Redacts and encodes `events` (``encode(_:)``), without the store's lock.
    public func prepare(_ events: [MeasurementEvent]) -> EncodedEvents {
        encode(events)
    }

    /// ``writeBatches(encoded:losses:)`` of what ``prepare(_:)`` made.
    public func writePrepared(_ batches: [EncodedEvents], losses: [DropReason: Int]) throws(StoreError) -> [Int] {
        try writeBatches(encoded: batches, losses: losses)
    }
}
