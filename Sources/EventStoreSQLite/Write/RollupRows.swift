import CSQLite
import EventStoreInterface
import SQLiteSupport

/// The rowids of one rollup table's rows that this connection has counted into, by group, so that a group met
/// again is counted with an `UPDATE` by rowid: the upsert binds every dimension (copying each text) and searches
/// the table's unique index on `ifnull` expressions, a quarter of the collector's writer time when it commits
/// small groups of requests (docs/design/storage-layout.md, "Rollup rows counted by rowid").
///
/// A rowid is only trusted while nothing but this connection's own counting can have changed the table: the
/// owner forgets them all after a rollback (a row inserted by it is gone and its rowid may be given again) and
/// when anything else wrote since its last commit (another connection: `PRAGMA data_version`; another statement
/// on its own, such as a rebuild of the rollups: `sqlite3_total_changes64`). An `UPDATE` that finds no row falls
/// back to the upsert. At most ``limit`` groups are held; past it the map starts over, so memory stays bounded
/// however many groups the table holds.
struct RollupRows<Key: Hashable> {
    /// The most groups held.
    static var limit: Int { 4_096 }

    private var rowids: [Key: Int64] = [:]
    /// `INSERT ... ON CONFLICT DO UPDATE ... RETURNING rowid`.
    private let upsert: SQLiteStatement
    /// `UPDATE ... SET count = count + ?2 WHERE rowid = ?1`.
    private let update: SQLiteStatement

    /// The rows of the table that `upsertSQL` (an upsert returning the row's rowid) writes, on `connection`.
    init(connection: SQLiteConnection, upsertSQL: String, table: String) throws(SQLiteError) {
        upsert = try connection.prepare(upsertSQL)
        update = try connection.prepare("UPDATE \(table) SET count = count + ?2 WHERE rowid = ?1")
    }

    /// Adds `count` events to the group `key`: by rowid when this connection counted into it before, else with
    /// the upsert, whose parameters `bind` sets.
    mutating func add(_ count: Int, to key: Key, bind: (SQLiteStatement) -> Void) throws(SQLiteError) {
        if let rowid = rowids[key] {
            update.bind(1, rowid)
            update.bind(2, Int64(count))
            try update.run()
            if update.connection.changes == 1 { return }
            rowids[key] = nil
        }
        bind(upsert)
        defer { upsert.reset() }
        guard try upsert.step() else {
            throw SQLiteError(.io, path: upsert.connection.path, "a rollup upsert returned no row")
        }
        let rowid = upsert.int64(0)
        while try upsert.step() {}
        if rowids.count >= Self.limit { rowids.removeAll(keepingCapacity: true) }
        rowids[key] = rowid
    }

    /// Forgets every rowid held.
    mutating func forget() {
        rowids.removeAll()
    }
}
