import EventStoreInterface

/// How hard a commit works to survive a crash.
public enum StoreDurability: String, Sendable, CaseIterable {
    /// WAL with `synchronous=NORMAL` (the default): a commit survives a killed process, and may be lost
    /// with the last moments before a power cut.
    case normal
    /// WAL with `synchronous=FULL`: every commit is on disk before it returns, against power loss too.
    case full
}

extension EventStore {
    /// Sets how hard later commits work to survive a crash (`PRAGMA synchronous`).
    /// - Throws: ``StoreError`` when SQLite refuses the setting.
    public func setDurability(_ durability: StoreDurability) throws(StoreError) {
        try withConnection { store throws(StoreError) in
            let level = durability == .full ? "FULL" : "NORMAL"
            try store.connection.execute("PRAGMA synchronous=\(level)", doing: "setting the durability")
        }
    }
}
