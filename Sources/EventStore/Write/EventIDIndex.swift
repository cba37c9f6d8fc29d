import MeasurementEvents

/// Exact dedup of event ids for all time, through the two-level id index of
/// Migrations/0011_index_event_ids_by_key.sql.
///
/// A new event is filed under its id's ``EventIDKey`` in `event_ids_recent`, a level small enough to stay in
/// the writer's page cache; once it holds ``mergeThreshold`` entries, ``mergeIfDue()`` moves them into
/// `event_ids` in key order, one sequential pass over the large level instead of a random page per id (at
/// 10M random ids, the old one-level index rewrote most of its 250 MB at every commit: docs/storage-layout.md).
/// A lookup checks both levels by key and compares the full id stored in `events`, so two ids that share a
/// key are two events.
///
/// Used by its ``EventWriter`` only, inside the writer's transaction.
final class EventIDIndex {
    /// Recent entries at which ``mergeIfDue()`` merges: about 18 MB of `event_ids_recent` at a million,
    /// which the ingest's 32 MiB page cache holds (docs/storage-layout.md has the measurements).
    static let defaultMergeThreshold = 1 << 20

    let connection: SQLiteConnection
    /// How many recent entries make ``mergeIfDue()`` merge (tests lower it to merge within a few events).
    var mergeThreshold: Int
    /// The key of an id. A test seam: tests force two ids onto one key; the stored keys must come from
    /// ``EventIDKey`` (migration 0011 computes them with it).
    var key: (EventID) -> Int64 = EventIDKey.key
    private let lookup: SQLiteStatement
    private let insertRecent: SQLiteStatement
    private let merge: SQLiteStatement
    private let clearRecent: SQLiteStatement
    /// The entries of `event_ids_recent`, or `nil` when unknown (after a rollback): counted again when needed.
    private var recentCount: Int?
    /// The greatest key in either level, or `nil` when unknown (at first and after a rollback). A key above it
    /// is new without a lookup: time-ordered UUIDv7 ids, whose keys grow (``EventIDKey``), skip most lookups.
    /// `Int64.min` for an empty index.
    private var greatestKey: Int64?

    init(connection: SQLiteConnection, mergeThreshold: Int = EventIDIndex.defaultMergeThreshold) throws(StoreError) {
        self.connection = connection
        self.mergeThreshold = max(1, mergeThreshold)
        lookup = try connection.prepare(EmbeddedSQL.statement("select_event_id"))
        insertRecent = try connection.prepare(EmbeddedSQL.statement("insert_event_id"))
        merge = try connection.prepare(EmbeddedSQL.statement("merge_event_ids"))
        clearRecent = try connection.prepare(EmbeddedSQL.statement("clear_event_ids_recent"))
    }

    /// Whether an event with `id` (whose key is `key`) is stored, committed or in the open transaction.
    func contains(_ id: EventID, key: Int64) throws(StoreError) -> Bool {
        let greatest: Int64
        if let known = greatestKey {
            greatest = known
        } else {
            greatest = try connection.scalarInt(
                "SELECT max(ifnull((SELECT max(key) FROM event_ids), -9223372036854775808), "
                    + "ifnull((SELECT max(key) FROM event_ids_recent), -9223372036854775808))")
            greatestKey = greatest
        }
        if key > greatest { return false }
        defer { lookup.reset() }
        lookup.bind(1, key)
        EventColumns.bindID(id, at: 2, to: lookup)
        return try lookup.step()
    }

    /// Whether `id` (under `key`), at `rank` of a write's entries in key order, is new: no earlier entry with its
    /// key holds the same id (the first of two events with one id is the one stored), and the index does not
    /// hold it. `keyAt` and `idAt` give an earlier entry's key and id by rank.
    func isNew(
        _ id: EventID, key: Int64, rank: Int, keyAt: (Int) -> Int64, idAt: (Int) -> EventID
    ) throws(StoreError) -> Bool {
        var earlier = rank - 1
        while earlier >= 0, keyAt(earlier) == key {
            if idAt(earlier) == id { return false }
            earlier -= 1
        }
        return try !contains(id, key: key)
    }

    /// Files the event just stored at `rowid` under `key`.
    func add(key: Int64, event rowid: Int64) throws(StoreError) {
        insertRecent.bind(1, key)
        insertRecent.bind(2, rowid)
        try insertRecent.run()
        if let count = recentCount { recentCount = count + 1 }
        if let greatest = greatestKey, key > greatest { greatestKey = key }
    }

    /// Moves the recent level into the large one when it holds ``mergeThreshold`` entries or more, inside the
    /// open transaction (so a rollback undoes it with the events).
    /// - Returns: whether it merged.
    @discardableResult
    func mergeIfDue() throws(StoreError) -> Bool {
        let count: Int
        if let known = recentCount {
            count = known
        } else {
            count = Int(try connection.scalarInt("SELECT count(*) FROM event_ids_recent"))
            recentCount = count
        }
        guard count >= mergeThreshold else { return false }
        try merge.run()
        try clearRecent.run()
        recentCount = 0
        return true
    }

    /// Forgets the greatest key at the start of a transaction: another connection (another process's writer)
    /// may have stored greater keys since this one's last transaction. Within a transaction no other
    /// connection writes. (The count of recent entries only times the merges, so it is kept.)
    func transactionBegan() {
        greatestKey = nil
    }

    /// Forgets the count of recent entries and the greatest key: the transaction that changed them was rolled
    /// back.
    func forgetCount() {
        recentCount = nil
        greatestKey = nil
    }
}
