import MeasurementEvents

/// One group of `event_rollup` (Migrations/0003_create_rollups.sql): a 15-minute UTC bucket and the
/// report's dimensions.
struct RollupKey: Hashable {
    /// The bucket length: 15 minutes, in milliseconds.
    static let bucketMilliseconds: Int64 = 900_000

    var bucket: Int64
    var name: String
    var ref: String?
    var refererAppName: String?
    var type: String?
    var success: Int64?
    var sourceURLHost: String?
    var error: String?

    /// A group with the bucket of `timestamp` and no dimension set yet.
    init(timestamp: Int64, name: String) {
        let size = RollupKey.bucketMilliseconds
        bucket = timestamp - ((timestamp % size) + size) % size
        self.name = name
    }

    /// The group of `event`.
    init(_ event: MeasurementEvent) {
        self.init(timestamp: event.timestamp, name: event.name)
        let fields = event.fields
        ref = fields[FieldName.ref]
        refererAppName = fields[FieldName.refererAppName]
        type = fields[FieldName.type]
        switch fields[FieldName.success] {
        case "1": success = 1
        case "0": success = 0
        default: success = nil
        }
        sourceURLHost = fields[FieldName.sourceURLHost]
        error = fields[FieldName.error]
    }

    /// Hashes the bucket and the dimensions that vary most (equality still compares every dimension):
    /// this runs once per stored event, so hashing three strings instead of seven matters.
    func hash(into hasher: inout Hasher) {
        hasher.combine(bucket)
        hasher.combine(name)
        hasher.combine(ref)
        hasher.combine(success)
        hasher.combine(refererAppName)
    }

    /// Upserts `count` more events of this group. Statements/upsert_rollup.sql.
    static let upsertSQL = EmbeddedSQL.statement("upsert_rollup")

    /// Recomputes the whole table from the raw events (same grouping as ``init(_:)``).
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
