/// How hard a commit works to survive a crash, for a backend that lets its writer choose (StoreOpening's
/// `StoreAccess.serve(_:)`). The SQLite store sets `PRAGMA synchronous` from it; PostgreSQL commits as its server
/// is configured and ignores it.
public enum StoreDurability: String, Sendable, CaseIterable {
    /// WAL with `synchronous=NORMAL` (the default): a commit survives a killed process, and may be lost
    /// with the last moments before a power cut.
    case normal
    /// WAL with `synchronous=FULL`: every commit is on disk before it returns, against power loss too.
    case full
}
