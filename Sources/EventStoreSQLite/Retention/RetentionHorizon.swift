import SQLiteSupport

/// The retention horizon as a writer knows it (Migrations/0021_create_retention_horizon.sql): the writer refuses an
/// event older than ``since`` (``EventWriter``), so that an event whose raw row and id a prune deleted is not
/// stored, and counted, a second time.
///
/// The writer reads it when it opens its first transaction and again whenever another connection has committed
/// since (`PRAGMA data_version`, which a prune's commits change): a prune runs on a connection of its own
/// (``SQLitePrune``), so a writer never misses one, and costs nothing between prunes.
final class RetentionHorizon {
    /// Raw events before it are refused; `Int64.min` while the database was never pruned.
    private(set) var since: Int64 = .min
    /// The epoch of freed rowids at the last read (Statements/raise_rowid_epoch.sql).
    private var rowidEpoch: Int64?
    /// `PRAGMA data_version` at the last read.
    private var dataVersion: Int64?
    private let select: SQLiteStatement

    init(connection: SQLiteConnection) throws(SQLiteError) {
        select = try connection.prepare(EmbeddedSQL.statement("select_retention_horizon"))
    }

    /// Reads the horizon again when `version` (`PRAGMA data_version` at the start of the writer's transaction)
    /// differs from the last read's, or at the first.
    /// - Returns: whether a prune freed rowids since the last read (not at the first): the writer then forgets the
    ///   rowids it holds of the id index, as after a rollback, since SQLite may give them to new events.
    func refresh(dataVersion version: Int64?) throws(SQLiteError) -> Bool {
        guard dataVersion == nil || version != dataVersion else { return false }
        defer { select.reset() }
        guard try select.step() else { return false }
        since = select.isNull(0) ? .min : select.int64(0)
        let epoch = select.int64(1)
        defer { (rowidEpoch, dataVersion) = (epoch, version) }
        return rowidEpoch.map { $0 != epoch } ?? false
    }
}
