import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// Exact dedup of event ids for all time, through the id index of Migrations/0011_index_event_ids_by_key.sql,
/// 0013_add_fresh_event_ids.sql and 0014_derive_fresh_event_ids.sql.
///
/// A new event is filed under its id's ``EventIDKey`` in the fresh level: the events stored after the last move
/// (migration 0014), whose entries the writer holds in memory for lookups and derives again from the events
/// when it needs to; once it holds ``freshLimit`` entries, ``flush()`` moves them into
/// `event_ids_recent` in key order, a level small enough to stay in the writer's page cache (a commit of a few
/// thousand random keys into it rewrote hundreds of its leaves: the collector's commits are that size);
/// once that holds ``mergeThreshold`` entries, ``mergeIfDue()`` moves them into
/// `event_ids` in key order, one sequential pass over the large level instead of a random page per id (at
/// 10M random ids, the old one-level index rewrote most of its 250 MB at every commit: docs/design/storage-layout.md).
/// A lookup checks both levels by key and compares the full id stored in `events`, so two ids that share a
/// key are two events. Before that, an in-memory filter over every stored key (``EventIDKeyFilter``) answers
/// "certainly new" for almost every new id, so that random ids do not read a random leaf of the large level
/// each: the lookup runs for duplicates and the filter's rare false positives.
///
/// Used by its ``EventWriter`` only, inside the writer's transaction.
final class EventIDIndex {
    /// Recent entries at which ``mergeIfDue()`` merges: about 18 MB of `event_ids_recent` at a million, inserted
    /// in key order through the ingest's 10 MiB page cache (docs/design/storage-layout.md has the measurements).
    static let defaultMergeThreshold = 1 << 20
    /// Fresh entries at which ``flush()`` moves them into the recent level: the sink's commit size, so that its
    /// commits skip the fresh level, while the collector's commits of a few thousand events append to it.
    static let defaultFreshLimit = 1 << 15
    /// The entries inserted by one run of a statement (a statement run per event cost about 8% of the sink's
    /// time: docs/design/storage-layout.md).
    static let insertRows = 64

    let connection: SQLiteConnection
    /// How many recent entries make ``mergeIfDue()`` merge (tests lower it to merge within a few events).
    var mergeThreshold: Int
    /// How many fresh entries make ``flush()`` move them into the recent level (tests lower it).
    var freshLimit = EventIDIndex.defaultFreshLimit
    /// The key of an id. A test seam: tests force two ids onto one key; the stored keys must come from
    /// ``EventIDKey`` (migration 0011 computes them with it).
    var key: (EventID) -> Int64 = EventIDKey.key
    private let lookup: SQLiteStatement
    private let insertRecent: SQLiteStatement
    /// ``insert_event_id.sql`` for ``insertRows`` entries at once: one statement run for that many events.
    private let insertRecentRows: SQLiteStatement
    /// The fresh level's entries (the first ``freshCount``: the committed events after `event_ids_moved`), then
    /// those of the open transaction in the order added: they join the fresh level as their events commit, or
    /// ``flush()`` moves all of them into the recent level in key order. Inserted one write at a time, random
    /// keys dirtied a random page of the recent level each, which the page cache, full of the new events' pages,
    /// wrote out again and again: 14.7 GB of writes for 1M random ids against 2.8 GB for ordered ones.
    private var pending: [PendingEntry] = []
    /// How many entries of ``pending`` are the fresh level's.
    private var freshCount = 0
    /// Whether ``pending`` begins with the fresh level as committed: not at first, nor after a rollback, nor
    /// once another connection committed (it may have added to the level, or moved it).
    private var freshLoaded = false
    /// `PRAGMA data_version` when the fresh level was read.
    private var freshDataVersion: Int64 = 0
    /// The events after the last move, with their ids: the fresh level, whose keys ``key`` computes again.
    private let selectFresh: SQLiteStatement
    /// Raises `event_ids_moved` to the greatest rowid moved.
    private let markMoved: SQLiteStatement
    /// The rowid of the first pending entry under each key.
    private var pendingByKey: [Int64: Int64] = [:]
    /// The rowids of further pending entries under a key (two ids with one key: rare).
    private var pendingCollisions: [Int64: [Int64]] = [:]
    private let selectID: SQLiteStatement
    private let merge: SQLiteStatement
    private let clearRecent: SQLiteStatement
    /// The entries of `event_ids_recent`, or `nil` when unknown (after a rollback): counted again when needed.
    private var recentCount: Int?
    /// The greatest key in either level, or `nil` when unknown (at first and after a rollback). A key above it
    /// is new without a lookup: time-ordered UUIDv7 ids, whose keys grow (``EventIDKey``), skip most lookups.
    /// `Int64.min` for an empty index.
    private var greatestKey: Int64?
    /// Every stored key, or `nil` until a lookup needs it (time-ordered ids never do) and after a rollback.
    private var filter: EventIDKeyFilter?
    /// The fewest keys a filter is built for (64 KiB). A test seam: tests lower it to grow the filter often.
    var minimumFilterCapacity = 1 << 16
    /// The keys in ``filter``.
    private var filterCount = 0
    /// How many times ``filter`` was built (tests: growing it must not rebuild it at every event).
    private(set) var filterBuilds = 0
    /// How many more keys the writer expects to add (an ingest's estimate from the bytes left to read), or `nil`
    /// when unknown. The next filter is built for them at once instead of for twice the keys held: built once
    /// for a whole file, at about the size of its keys, not rebuilt as it doubles past them.
    var expectedNewKeys: Int?
    /// The greatest rowid of `events` whose key is in ``filter``: the events another connection stores come
    /// after it (events are never deleted, and rowids grow).
    private var filterThroughRowid: Int64 = 0
    /// `PRAGMA data_version` when ``filter`` was last brought up to date: it changes when another connection
    /// commits, and then that connection's events are added to the filter before this one looks anything up.
    private var filterDataVersion: Int64 = 0
    private let dataVersionStatement: SQLiteStatement
    /// `PRAGMA data_version` at the start of the open (or last) transaction: it changes when another connection
    /// has committed.
    private(set) var dataVersion: Int64?
    private let keysAfter: SQLiteStatement
    private let greatestStored: SQLiteStatement

    init(connection: SQLiteConnection, mergeThreshold: Int = EventIDIndex.defaultMergeThreshold) throws(SQLiteError) {
        self.connection = connection
        self.mergeThreshold = max(1, mergeThreshold)
        lookup = try connection.prepare(EmbeddedSQL.statement("select_event_id"))
        insertRecent = try connection.prepare(EmbeddedSQL.statement("insert_event_id"))
        insertRecentRows = try connection.prepare(
            "INSERT INTO event_ids_recent (key, event) VALUES "
                + repeatElement("(?, ?)", count: Self.insertRows).joined(separator: ", "))
        selectFresh = try connection.prepare(
            "SELECT rowid, id FROM events WHERE rowid > (SELECT through_event FROM event_ids_moved) ORDER BY rowid")
        markMoved = try connection.prepare("UPDATE event_ids_moved SET through_event = ?1")
        selectID = try connection.prepare("SELECT id FROM events WHERE rowid = ?1")
        merge = try connection.prepare(EmbeddedSQL.statement("merge_event_ids"))
        clearRecent = try connection.prepare(EmbeddedSQL.statement("clear_event_ids_recent"))
        dataVersionStatement = try connection.prepare("PRAGMA data_version")
        keysAfter = try connection.prepare("SELECT rowid, alstats_id_key(id) FROM events WHERE rowid > ?1")
        greatestStored = try connection.prepare(
            "SELECT max(ifnull((SELECT max(key) FROM event_ids), -9223372036854775808), "
                + "ifnull((SELECT max(key) FROM event_ids_recent), -9223372036854775808))")
    }

    /// Whether an event with `id` (whose key is `key`) is stored, committed or in the open transaction.
    func contains(_ id: EventID, key: Int64) throws(SQLiteError) -> Bool {
        let greatest: Int64
        if let known = greatestKey {
            greatest = known
        } else {
            defer { greatestStored.reset() }
            let stored = try greatestStored.step() ? greatestStored.int64(0) : .min
            greatest = pending.reduce(stored) { max($0, $1.key) }
            greatestKey = greatest
        }
        if key > greatest { return false }
        if try !mayContain(key) { return false }
        if try pendingContains(id, key: key) { return true }
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
    ) throws(SQLiteError) -> Bool {
        var earlier = rank - 1
        while earlier >= 0, keyAt(earlier) == key {
            if idAt(earlier) == id { return false }
            earlier -= 1
        }
        return try !contains(id, key: key)
    }

    /// Whether a fresh or pending entry under `key` is an event with `id`.
    private func pendingContains(_ id: EventID, key: Int64) throws(SQLiteError) -> Bool {
        guard let first = pendingByKey[key] else { return false }
        for rowid in [first] + (pendingCollisions[key] ?? []) {
            defer { selectID.reset() }
            selectID.bind(1, rowid)
            if try selectID.step(), EventColumns.readID(selectID, column: 0) == id { return true }
        }
        return false
    }

    /// Files the event just stored at `rowid` under `key`: pending until ``flush()`` inserts the transaction's
    /// entries into the fresh or recent level, and found by lookups meanwhile.
    func add(key: Int64, event rowid: Int64) {
        remember(key: key, rowid: rowid)
        if let greatest = greatestKey, key > greatest { greatestKey = key }
        guard filter != nil else { return }
        filter?.insert(key)
        filterCount += 1
        filterThroughRowid = max(filterThroughRowid, rowid)
        dropFilterWhenFull()
    }

    /// Adds an entry to ``pending`` and to the lookup by key.
    private func remember(key: Int64, rowid: Int64) {
        pending.append(PendingEntry(key: key, rowid: rowid))
        if pendingByKey[key] == nil {
            pendingByKey[key] = rowid
        } else {
            pendingCollisions[key, default: []].append(rowid)
        }
    }

    /// Reads the fresh level into ``pending`` (which holds no entry of a transaction yet): the events after the
    /// last move, their keys computed from their ids.
    private func loadFresh() throws(SQLiteError) {
        forgetPending(from: 0)
        defer { selectFresh.reset() }
        while try selectFresh.step() {
            remember(key: key(EventColumns.readID(selectFresh, column: 1)), rowid: selectFresh.int64(0))
        }
        freshCount = pending.count
        freshLoaded = true
    }

    /// Drops the filter once it holds more keys than its capacity: it is built again, twice as large, when next
    /// needed.
    private func dropFilterWhenFull() {
        if filterCount > filter?.capacity ?? 0 { filter = nil }
    }

    /// Keeps the transaction's entries in the fresh level (nothing to write: the level is the events after the
    /// last move); or, once that would hold ``freshLimit`` entries, moves them all into the recent level in key
    /// order, ``insertRows`` to a statement, and records the move. Before a merge and the commit; on an error the
    /// caller rolls the transaction back.
    func flush() throws(SQLiteError) {
        guard pending.count > freshCount else { return }
        guard pending.count >= freshLimit else {
            freshCount = pending.count
            return
        }
        let moved = pending.reduce(Int64(0)) { max($0, $1.rowid) }
        pending.sort { ($0.key, $0.rowid) < ($1.key, $1.rowid) }
        var start = 0
        while pending.count - start >= Self.insertRows {
            for offset in 0..<Self.insertRows {
                insertRecentRows.bind(Int32(2 * offset + 1), pending[start + offset].key)
                insertRecentRows.bind(Int32(2 * offset + 2), pending[start + offset].rowid)
            }
            try insertRecentRows.run()
            start += Self.insertRows
        }
        for entry in pending[start...] {
            insertRecent.bind(1, entry.key)
            insertRecent.bind(2, entry.rowid)
            try insertRecent.run()
        }
        markMoved.bind(1, moved)
        try markMoved.run()
        if let count = recentCount { recentCount = count + pending.count }
        forgetPending(from: 0)
        freshCount = 0
    }

    /// How many entries are pending: a write that fails inside a transaction that goes on gives it to
    /// ``abandon(from:)``.
    var pendingMark: Int { pending.count }

    /// Forgets the entries added since `mark`: their write was rolled back to its savepoint. The greatest key
    /// and the filter are forgotten too (the filter has seen rowids that may be given again).
    func abandon(from mark: Int) {
        forgetPending(from: mark)
        greatestKey = nil
        filter = nil
    }

    private func forgetPending(from mark: Int) {
        guard mark > 0 else {
            pending.removeAll(keepingCapacity: true)
            pendingByKey.removeAll(keepingCapacity: true)
            pendingCollisions.removeAll()
            return
        }
        for entry in pending[mark...] {
            if var others = pendingCollisions[entry.key] {
                others.removeAll { $0 == entry.rowid }
                if pendingByKey[entry.key] == entry.rowid { pendingByKey[entry.key] = others.removeFirst() }
                pendingCollisions[entry.key] = others.isEmpty ? nil : others
            } else if pendingByKey[entry.key] == entry.rowid {
                pendingByKey[entry.key] = nil
            }
        }
        pending.removeSubrange(mark...)
    }

    /// Whether the index may hold `key`, by ``filter`` (built first when there is none).
    private func mayContain(_ key: Int64) throws(SQLiteError) -> Bool {
        if filter == nil { try buildFilter() }
        return filter?.mayContain(key) ?? true
    }

    /// Builds ``filter`` from both stored levels and the pending entries, for twice the keys they hold (or for
    /// them and ``expectedNewKeys``). Inside
    /// the writer's transaction, so that no other connection stores events meanwhile.
    ///
    /// Sized for the stored levels alone, a filter built while the fresh level held thousands of entries was
    /// over its capacity at once: dropped at the next event, built again at the next lookup, for every event
    /// until the next move (the collector stalled for 2.5–5 s at about 66,000 events, 65,536 being the
    /// smallest filter).
    private func buildFilter() throws(SQLiteError) {
        let count = Int(
            try connection.scalarInt(
                "SELECT (SELECT count(*) FROM event_ids) + (SELECT count(*) FROM event_ids_recent)"))
        let held = count + pending.count
        // Room for what is expected and a sixteenth more; at least a quarter more than is held, so that an estimate
        // that falls short costs a build every quarter, not every batch.
        let room = expectedNewKeys.map { max($0 + $0 / 16, held / 4) } ?? held
        var built = EventIDKeyFilter(capacity: max(held + room, minimumFilterCapacity))
        filterBuilds += 1
        let keys = try connection.prepare("SELECT key FROM event_ids UNION ALL SELECT key FROM event_ids_recent")
        while try keys.step() { built.insert(keys.int64(0)) }
        for entry in pending { built.insert(entry.key) }
        filterThroughRowid = try connection.scalarInt("SELECT ifnull(max(rowid), 0) FROM events")
        filterDataVersion = try readDataVersion()
        filterCount = count + pending.count
        filter = built
    }

    /// Adds to ``filter`` the keys of the events other connections stored since it was last brought up to date.
    /// - Parameter version: `PRAGMA data_version` now (read once per transaction by ``transactionBegan()``).
    private func catchUpFilter(at version: Int64) throws(SQLiteError) {
        guard version != filterDataVersion else { return }
        defer { keysAfter.reset() }
        keysAfter.bind(1, filterThroughRowid)
        while try keysAfter.step() {
            filterThroughRowid = max(filterThroughRowid, keysAfter.int64(0))
            filter?.insert(keysAfter.int64(1))
            filterCount += 1
        }
        filterDataVersion = version
        dropFilterWhenFull()
    }

    private func readDataVersion() throws(SQLiteError) -> Int64 {
        defer { dataVersionStatement.reset() }
        guard try dataVersionStatement.step() else { return 0 }
        return dataVersionStatement.int64(0)
    }

    /// Moves the recent level into the large one when it holds ``mergeThreshold`` entries or more, inside the
    /// open transaction (so a rollback undoes it with the events).
    /// - Returns: whether it merged.
    @discardableResult
    func mergeIfDue() throws(SQLiteError) -> Bool {
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

    /// Forgets the greatest key at the start of a transaction when another connection (another process's
    /// writer) has committed since this one's last transaction, and adds to the filter the keys other
    /// connections stored. Within a transaction no other connection writes. (The count of recent entries
    /// only times the merges, so it is kept.)
    func transactionBegan() throws(SQLiteError) {
        let version = try readDataVersion()
        dataVersion = version
        // `PRAGMA data_version` changes with other connections' commits only; this connection's own keys are in
        // the greatest key already (``add(key:event:)``), and after a rollback it is unknown (``abandon(from:)``).
        if version != freshDataVersion { greatestKey = nil }
        if !freshLoaded || version != freshDataVersion {
            try loadFresh()
            freshDataVersion = version
        }
        if filter != nil { try catchUpFilter(at: version) }
    }

    /// Forgets what the rolled-back transaction changed: its pending entries, the greatest key and the filter
    /// (``abandon(from:)`` from the start), the fresh entries (read again at the next transaction: the flush
    /// may have been rolled back) and the count of recent entries (a merge may have been rolled back).
    /// A filter holding a key that is not stored would only cost a lookup, but the rowids it has seen may be
    /// given again.
    func forgetTransaction() {
        abandon(from: 0)
        freshCount = 0
        freshLoaded = false
        recentCount = nil
    }
}

/// An entry of the id index's fresh level, or added in the open transaction and not yet inserted
/// (``EventIDIndex/flush()``).
private struct PendingEntry {
    var key: Int64
    var rowid: Int64
}
