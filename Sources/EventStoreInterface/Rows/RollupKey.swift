import MeasurementEvents

/// One group of `event_rollup` (Migrations/0003_create_rollups.sql): a 15-minute UTC bucket and the
/// report's dimensions.
package struct RollupKey: Hashable {
    /// The bucket length: 15 minutes, in milliseconds.
    package static let bucketMilliseconds: Int64 = 900_000

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

    /// A day length, in milliseconds.
    package static let dayMilliseconds: Int64 = 86_400_000

    /// This group with its bucket widened to the UTC day: the key of `event_rollup_day`.
    package var day: RollupKey {
        var key = self
        let size = RollupKey.dayMilliseconds
        key.bucket = bucket - ((bucket % size) + size) % size
        return key
    }

    /// This group's bucket, name, type and success: the key of `event_rollup_series`.
    package var series: SeriesKey { SeriesKey(bucket: bucket, name: name, type: type, success: success) }
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
}
