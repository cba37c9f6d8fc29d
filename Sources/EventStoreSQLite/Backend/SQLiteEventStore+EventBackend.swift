import EventStoreInterface
import MeasurementEvents

/// The SQLite store is the first ``EventBackend``: its synchronous methods answer the protocol's `async` ones
/// (they run on the caller's thread, under the store's lock, and never suspend).
extension SQLiteEventStore: EventBackend {
    /// The database file.
    public var location: String { path }

    /// Commits any batch the writer holds and lets SQLite refresh its query statistics (`PRAGMA optimize`).
    /// The file itself is closed when the last reference to the store goes.
    /// - Throws: ``StoreError`` when the held batch could not be committed.
    public func close() throws(StoreError) {
        try withConnection { store throws(StoreError) in
            if store.writer.inTransaction { try store.writer.commit() }
            try? store.connection.execute("PRAGMA optimize")
        }
    }
}

extension EncodedEvents: PreparedEvents {}

extension SQLiteEventStore {
    /// Redacts and encodes `events` (``encode(_:)``), without the store's lock.
    public func prepare(_ events: [MeasurementEvent]) -> any PreparedEvents {
        encode(events)
    }

    /// ``writeBatches(encoded:losses:)`` of what ``prepare(_:)`` made; events given as they are
    /// (``UnpreparedEvents``) are encoded here first, so any prepared value is written.
    public func writePrepared(
        _ batches: [any PreparedEvents], losses: [DropReason: Int]
    ) throws(StoreError) -> [Int] {
        let encoded = batches.map { batch in
            if let encoded = batch as? EncodedEvents { return encoded }
            if let unprepared = batch as? UnpreparedEvents { return encode(unprepared.events) }
            preconditionFailure("\(type(of: batch)) was not prepared by SQLiteEventStore.prepare(_:)")
        }
        return try writeBatches(encoded: encoded, losses: losses)
    }
}
