import MeasurementEvents

/// One group of `event_rollup` (Migrations/0003_create_rollups.sql): a 15-minute UTC bucket and the
/// report's dimensions.
package struct RollupKey: Hashable {
    /// The bucket length: 15 minutes, in milliseconds.
    static let bucketMilliseconds: Int64 = 900_000

    package var bucket: Int64
    package var name: String
    package var ref: String?
    package var refererAppName: String?
    package var type: String?
    package var success: Int64?
    package var sourceURLHost: String?
    package var error: String?

    /// A group with the bucket of `timestamp` and no dimension set yet.
    package init(timestamp: Int64, name: String) {
        let size = RollupKey.bucketMilliseconds
        bucket = timestamp - ((timestamp % size) + size) % size
        self.name = name
    }

    /// Equal when every dimension has the same bytes (``Swift/String/hasSameBytes(as:)``), as the rollup tables'
    /// unique keys and a rebuild from the events group them: text that differs only in Unicode normalisation is two
    /// groups.
    package static func == (lhs: RollupKey, rhs: RollupKey) -> Bool {
        lhs.bucket == rhs.bucket && lhs.success == rhs.success && lhs.name.hasSameBytes(as: rhs.name)
            && lhs.ref.hasSameBytes(as: rhs.ref) && lhs.refererAppName.hasSameBytes(as: rhs.refererAppName)
            && lhs.type.hasSameBytes(as: rhs.type) && lhs.sourceURLHost.hasSameBytes(as: rhs.sourceURLHost)
            && lhs.error.hasSameBytes(as: rhs.error)
    }

    /// Hashes the bucket and the dimensions that vary most (equality still compares every dimension):
    /// this runs once per stored event, so hashing three strings instead of seven matters.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(bucket)
        name.hashBytes(into: &hasher)
        ref.hashBytes(into: &hasher)
        hasher.combine(success)
        refererAppName.hashBytes(into: &hasher)
    }

    /// Upserts `count` more events of this group. Statements/upsert_rollup.sql.
    static let upsertSQL = EmbeddedSQL.statement("upsert_rollup")

    /// Upserts `count` more events of this group's UTC day into `event_rollup_day` (Migrations/0005).
    /// Statements/upsert_rollup_day.sql.
    static let dayUpsertSQL = EmbeddedSQL.statement("upsert_rollup_day")

    /// Upserts `count` more events of a bucket, name, type and success into `event_rollup_series`
    /// (Migrations/0005). Statements/upsert_rollup_series.sql.
    static let seriesUpsertSQL = EmbeddedSQL.statement("upsert_rollup_series")

    /// A day length, in milliseconds.
    static let dayMilliseconds: Int64 = 86_400_000

    /// This group with its bucket widened to the UTC day: the key of `event_rollup_day`.
    package var day: RollupKey {
        var key = self
        let size = RollupKey.dayMilliseconds
        key.bucket = bucket - ((bucket % size) + size) % size
        return key
    }

    /// This group's bucket, name, type and success: the key of `event_rollup_series`.
    package var series: SeriesKey { SeriesKey(bucket: bucket, name: name, type: type, success: success) }

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

/// One group of `event_rollup_series`: a 15-minute bucket, an event name, its type and success.
package struct SeriesKey: Hashable {
    package var bucket: Int64
    package var name: String
    package var type: String?
    package var success: Int64?

    /// Equal when every dimension has the same bytes, as ``RollupKey``'s.
    package static func == (lhs: SeriesKey, rhs: SeriesKey) -> Bool {
        lhs.bucket == rhs.bucket && lhs.success == rhs.success && lhs.name.hasSameBytes(as: rhs.name)
            && lhs.type.hasSameBytes(as: rhs.type)
    }

    /// Hashes what ``==`` compares, text by its bytes.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(bucket)
        name.hashBytes(into: &hasher)
        type.hashBytes(into: &hasher)
        hasher.combine(success)
    }

    func bind(to statement: SQLiteStatement, count: Int) {
        statement.bind(1, bucket)
        statement.bind(2, name)
        statement.bind(3, type)
        statement.bind(4, success)
        statement.bind(5, Int64(count))
    }
}
