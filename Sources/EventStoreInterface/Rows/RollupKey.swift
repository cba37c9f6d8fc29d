import MeasurementEvents

/// One group of `event_rollup` (Migrations/0003_create_rollups.sql): a 15-minute UTC bucket and the
/// report's dimensions.
///
/// The dimensions are held once, by reference, and hashed when the key is made: the writers look a group up in
/// several dictionaries per commit (pending groups, rowids, day and series sums), and a key of seven strings
/// copied into each probe (a retain and a release of each) and hashed again each time was a fifth of the
/// collector's CPU when its commits were small.
package struct RollupKey: Hashable, Sendable {
    /// The bucket length: 15 minutes, in milliseconds.
    package static let bucketMilliseconds: Int64 = 900_000
    /// A day length, in milliseconds.
    package static let dayMilliseconds: Int64 = 86_400_000

    /// The start of the bucket, in Unix milliseconds.
    package var bucket: Int64
    /// The event name and the report's dimensions, shared by copies of the key.
    package let dimensions: Dimensions

    /// The group of an event at `timestamp` (its 15-minute bucket) with these dimensions.
    package init(
        timestamp: Int64, name: String, ref: String? = nil, refererAppName: String? = nil, type: String? = nil,
        success: Int64? = nil, sourceURLHost: String? = nil, error: String? = nil
    ) {
        bucket = RollupKey.start(of: timestamp, size: RollupKey.bucketMilliseconds)
        dimensions = Dimensions(
            name: name, ref: ref, refererAppName: refererAppName, type: type, success: success,
            sourceURLHost: sourceURLHost, error: error)
    }

    private init(bucket: Int64, dimensions: Dimensions) {
        self.bucket = bucket
        self.dimensions = dimensions
    }

    /// The start of the `size`-long span (from the epoch) holding `timestamp`; `Int64.min` for a time in the span
    /// that starts below it (one the intake refuses, outside ``EventTime/supportedRange``: never a trap).
    package static func start(of timestamp: Int64, size: Int64) -> Int64 {
        let (start, overflow) = timestamp.subtractingReportingOverflow(((timestamp % size) + size) % size)
        return overflow ? .min : start
    }

    package var name: String { dimensions.name }
    package var ref: String? { dimensions.ref }
    package var refererAppName: String? { dimensions.refererAppName }
    package var type: String? { dimensions.type }
    package var success: Int64? { dimensions.success }
    package var sourceURLHost: String? { dimensions.sourceURLHost }
    package var error: String? { dimensions.error }

    /// Equal when every dimension has the same bytes (``Swift/String/hasSameBytes(as:)``), as the rollup tables'
    /// unique keys and a rebuild from the events group them: text that differs only in Unicode normalisation is two
    /// groups.
    package static func == (lhs: RollupKey, rhs: RollupKey) -> Bool {
        lhs.bucket == rhs.bucket && (lhs.dimensions === rhs.dimensions || lhs.dimensions.sameGroup(as: rhs.dimensions))
    }

    /// Hashes the bucket and the dimensions' hash (of every dimension), made once with the key.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(bucket)
        hasher.combine(dimensions.groupHash)
    }

    /// This group with its bucket widened to the UTC day: the key of `event_rollup_day`.
    package var day: RollupKey {
        RollupKey(bucket: RollupKey.start(of: bucket, size: RollupKey.dayMilliseconds), dimensions: dimensions)
    }

    /// This group's bucket, name, type and success: the key of `event_rollup_series`.
    package var series: SeriesKey { SeriesKey(bucket: bucket, dimensions: dimensions) }

    /// A rollup group's name and dimensions, and their hashes as a group and as a series.
    package final class Dimensions: Sendable {
        package let name: String
        package let ref: String?
        package let refererAppName: String?
        package let type: String?
        package let success: Int64?
        package let sourceURLHost: String?
        package let error: String?
        /// The hash of every dimension. (Hashing only those that vary most made groups that differ in the others,
        /// such as many source hosts of one referer, collide: long probes, each comparing the texts.)
        let groupHash: Int
        /// The hash of the name, type and success (``SeriesKey``'s dimensions).
        let seriesHash: Int

        init(
            name: String, ref: String?, refererAppName: String?, type: String?, success: Int64?,
            sourceURLHost: String?, error: String?
        ) {
            self.name = name
            self.ref = ref
            self.refererAppName = refererAppName
            self.type = type
            self.success = success
            self.sourceURLHost = sourceURLHost
            self.error = error
            var group = Hasher()
            name.hashBytes(into: &group)
            ref.hashBytes(into: &group)
            group.combine(success)
            refererAppName.hashBytes(into: &group)
            type.hashBytes(into: &group)
            sourceURLHost.hashBytes(into: &group)
            error.hashBytes(into: &group)
            groupHash = group.finalize()
            var series = Hasher()
            name.hashBytes(into: &series)
            type.hashBytes(into: &series)
            series.combine(success)
            seriesHash = series.finalize()
        }

        /// Whether every dimension has the same bytes.
        func sameGroup(as other: Dimensions) -> Bool {
            groupHash == other.groupHash && sameSeries(as: other) && ref.hasSameBytes(as: other.ref)
                && refererAppName.hasSameBytes(as: other.refererAppName)
                && sourceURLHost.hasSameBytes(as: other.sourceURLHost) && error.hasSameBytes(as: other.error)
        }

        /// Whether the name, type and success are the same.
        func sameSeries(as other: Dimensions) -> Bool {
            success == other.success && name.hasSameBytes(as: other.name) && type.hasSameBytes(as: other.type)
        }
    }
}

/// One group of `event_rollup_series`: a 15-minute bucket, an event name, its type and success (of a
/// ``RollupKey``'s dimensions, whose other dimensions it ignores).
package struct SeriesKey: Hashable, Sendable {
    package var bucket: Int64
    private let dimensions: RollupKey.Dimensions

    fileprivate init(bucket: Int64, dimensions: RollupKey.Dimensions) {
        self.bucket = bucket
        self.dimensions = dimensions
    }

    package var name: String { dimensions.name }
    package var type: String? { dimensions.type }
    package var success: Int64? { dimensions.success }

    /// Equal when every dimension has the same bytes, as ``RollupKey``'s.
    package static func == (lhs: SeriesKey, rhs: SeriesKey) -> Bool {
        lhs.bucket == rhs.bucket
            && (lhs.dimensions === rhs.dimensions
                || (lhs.dimensions.seriesHash == rhs.dimensions.seriesHash
                    && lhs.dimensions.sameSeries(as: rhs.dimensions)))
    }

    /// Hashes the bucket and the series' hash, made once with the key's dimensions.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(bucket)
        hasher.combine(dimensions.seriesHash)
    }
}
