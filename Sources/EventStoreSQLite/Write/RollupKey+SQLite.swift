import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

extension RollupKey {
    /// Upserts `count` more events of this group. Statements/upsert_rollup.sql.
    static let upsertSQL = EmbeddedSQL.statement("upsert_rollup")

    /// Upserts `count` more events of this group's UTC day into `event_rollup_day` (Migrations/0005).
    /// Statements/upsert_rollup_day.sql.
    static let dayUpsertSQL = EmbeddedSQL.statement("upsert_rollup_day")

    /// Upserts `count` more events of a bucket, name, type and success into `event_rollup_series`
    /// (Migrations/0005). Statements/upsert_rollup_series.sql.
    static let seriesUpsertSQL = EmbeddedSQL.statement("upsert_rollup_series")

    /// Recomputes the three rollup tables from the raw events (same grouping as ``EventColumns/columns(of:extra:column:)``).
    /// Statements/rebuild_rollups.sql.
    static let rebuildSQL = EmbeddedSQL.statement("rebuild_rollups")

    func bind(to statement: SQLiteStatement, count: Int) {
        statement.bind(1, bucket)
        statement.bind(2, name)
        statement.bind(3, ref)
        statement.bind(4, refererAppName)
        statement.bind(5, type)
        statement.bind(6, success)
        statement.bind(7, sourceURLHost)
        statement.bind(8, error)
        statement.bind(9, Int64(count))
    }
}

extension SeriesKey {
    func bind(to statement: SQLiteStatement, count: Int) {
        statement.bind(1, bucket)
        statement.bind(2, name)
        statement.bind(3, type)
        statement.bind(4, success)
        statement.bind(5, Int64(count))
    }
}
