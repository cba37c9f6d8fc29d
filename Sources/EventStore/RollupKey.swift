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

    /// Upserts `count` more events of this group.
    static let upsertSQL = """
        INSERT INTO event_rollup (bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
        ON CONFLICT (bucket_ms, name, ifnull(ref, x''), ifnull(referer_app_name, x''), ifnull(type, x''),
            ifnull(success, x''), ifnull(source_url_host, x''), ifnull(error, x''))
        DO UPDATE SET count = count + excluded.count
        """

    /// Recomputes the whole table from the raw events (same grouping as ``init(_:)``).
    static let rebuildSQL = """
        DELETE FROM event_rollup;
        INSERT INTO event_rollup (bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
        SELECT ts_ms - ((ts_ms % 900000) + 900000) % 900000, name, ref, referer_app_name, type, success,
            source_url_host, error, count(*)
        FROM events
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
        """

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
