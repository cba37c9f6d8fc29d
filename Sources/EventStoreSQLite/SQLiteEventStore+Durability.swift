import EventStoreInterface
import SQLiteSupport

extension SQLiteEventStore {
    /// Sets how hard later commits work to survive a crash (`PRAGMA synchronous`).
    /// - Throws: ``SQLiteError`` when SQLite refuses the setting.
    public func setDurability(_ durability: StoreDurability) throws(StoreError) {
        try withStore { store throws(SQLiteError) in
            let level = durability == .full ? "FULL" : "NORMAL"
            try store.connection.execute("PRAGMA synchronous=\(level)", doing: "setting the durability")
        }
    }
}
