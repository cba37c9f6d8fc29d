import EventStoreInterface
import MeasurementEvents

/// The SQLite store is the first ``EventBackend``: its synchronous methods answer the protocol's `async` ones
/// (they run on the caller's thread, under the store's lock, and never suspend).
extension EventStore: EventBackend {
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
