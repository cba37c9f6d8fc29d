import EventStoreInterface
import SQLiteSupport

/// The report's rollups as the writer keeps them: the groups the open transaction's rows count into, and the rows of
/// the three rollup tables (15-minute groups, days, series) they are added to at commit, by rowid once this
/// connection has counted into a row (``RollupRows``).
struct EventRollups {
    /// The groups of the open transaction, upserted at commit.
    private(set) var pending: [RollupKey: Int] = [:]
    /// The groups of the write in progress, merged into ``pending`` when it succeeds (kept for its capacity).
    var batch: [RollupKey: Int] = [:]
    private var quarters: RollupRows<RollupKey>
    private var days: RollupRows<RollupKey>
    private var series: RollupRows<SeriesKey>
    /// `PRAGMA data_version` and the connection's ``SQLiteConnection/totalChanges`` as this writer's own
    /// transactions left them: when either differs at the next one, something else wrote (another connection, or
    /// another statement on this one, such as a rebuild of the rollups) and the rows' rowids are forgotten.
    private var dataVersion: Int64?
    private var changes: Int64?

    init(connection: SQLiteConnection) throws(SQLiteError) {
        quarters = try RollupRows(connection: connection, upsertSQL: RollupKey.upsertSQL, table: "event_rollup")
        days = try RollupRows(connection: connection, upsertSQL: RollupKey.dayUpsertSQL, table: "event_rollup_day")
        series = try RollupRows(
            connection: connection, upsertSQL: RollupKey.seriesUpsertSQL, table: "event_rollup_series")
    }

    /// Counts `count` events of group `key` in the open transaction (encoded rows, which are not in a write's
    /// ``batch``).
    mutating func add(_ key: RollupKey, _ count: Int) {
        pending[key, default: 0] += count
    }

    /// Keeps the groups of the write that just succeeded.
    mutating func keepBatch() {
        pending.merge(batch, uniquingKeysWith: +)
    }

    /// At the start of a transaction: forgets the rows' rowids when something else wrote since this writer's last
    /// commit (`dataVersion` is the database's now, `totalChanges` the connection's).
    mutating func transactionBegan(dataVersion: Int64?, totalChanges: Int64) {
        if dataVersion != self.dataVersion || totalChanges != changes {
            forgetRows()
            self.dataVersion = dataVersion
        }
    }

    /// Adds the pending groups to the three tables: the day and series groups are sums of the 15-minute groups, a
    /// few per transaction.
    mutating func upsertPending() throws(SQLiteError) {
        var dayGroups: [RollupKey: Int] = [:]
        var seriesGroups: [SeriesKey: Int] = [:]
        for (key, count) in pending {
            try quarters.add(count, to: key) { key.bind(to: $0, count: count) }
            dayGroups[key.day, default: 0] += count
            seriesGroups[key.series, default: 0] += count
        }
        for (key, count) in dayGroups {
            try days.add(count, to: key) { key.bind(to: $0, count: count) }
        }
        for (key, count) in seriesGroups {
            try series.add(count, to: key) { key.bind(to: $0, count: count) }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// After this writer's commit: the connection's changes, by which the next transaction knows that nothing else
    /// wrote in between.
    mutating func committed(totalChanges: Int64) {
        changes = totalChanges
    }

    /// Abandons the pending groups and the rows' rowids (after a rollback, rows the writer inserted are gone).
    mutating func reset() {
        pending.removeAll()
        forgetRows()
    }

    /// Forgets the rowids of the rollup rows this connection counted into (``RollupRows``).
    private mutating func forgetRows() {
        quarters.forget()
        days.forget()
        series.forget()
    }
}
