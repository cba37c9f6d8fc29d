import EventStore
import PostgresNIO

extension PostgresEventStore {
    /// The advisory lock key of partition creation ("alstats" and 2).
    static let partitionLockKey: Int64 = 0x616C_7374_6174_7302

    /// The month partition of an instant: its name and range [start, end) in ms since the Unix epoch, or `nil`
    /// for an instant before 1900 or after 9999 (kept in the default partition, events_other).
    static func monthPartition(of milliseconds: Int64) -> (name: String, start: Int64, end: Int64)? {
        let day: Int64 = 86_400_000
        let days = milliseconds >= 0 ? milliseconds / day : -((-(milliseconds + 1)) / day) - 1
        let (year, month, _) = EventTime.civil(days: days)
        guard (1900...9999).contains(year) else { return nil }
        let start = EventTime.days(year: year, month: month, day: 1) * day
        let next = month == 12 ? (year + 1, Int64(1)) : (year, month + 1)
        let end = EventTime.days(year: next.0, month: next.1, day: 1) * day
        let name = "events_\(year)_\(month < 10 ? "0" : "")\(month)"
        return (name, start, end)
    }

    /// Creates the month partitions of `timestamps` that this store has not seen yet, in a transaction of their
    /// own under an advisory lock (two writers creating one month at once do not collide), before the batch's
    /// transaction: creating a partition locks `events`, which the batch should not hold for long. A timestamp in the
    /// month of the one before it is passed over without working out its month again (a batch's timestamps mostly
    /// share a month, and a partition's name is a `String` to make).
    func ensurePartitions(for timestamps: some Sequence<Int64>) async throws(StoreError) {
        var missing: [Int64: (name: String, start: Int64, end: Int64)] = [:]
        let known = partitions.withLock { $0 }
        var month: Range<Int64> = 0..<0
        for timestamp in timestamps where !month.contains(timestamp) {
            guard let partition = PostgresEventStore.monthPartition(of: timestamp) else { continue }
            month = partition.start..<partition.end
            guard !known.contains(partition.start), missing[partition.start] == nil else { continue }
            missing[partition.start] = partition
        }
        guard !missing.isEmpty else { return }
        let sorted = missing.values.sorted { $0.start < $1.start }
        try await inTransaction(doing: "creating the month partitions of events") { connection in
            try await self.run("SELECT pg_advisory_xact_lock(\(PostgresEventStore.partitionLockKey))", on: connection)
            for partition in sorted {
                try await self.run(
                    "CREATE TABLE IF NOT EXISTS \(partition.name) PARTITION OF events "
                        + "FOR VALUES FROM (\(partition.start)) TO (\(partition.end))", on: connection)
            }
        }
        partitions.withLock { $0.formUnion(missing.keys) }
    }
}
