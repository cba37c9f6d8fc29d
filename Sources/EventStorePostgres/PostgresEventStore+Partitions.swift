import EventStoreInterface
import MeasurementEvents
import PostgresNIO

extension PostgresEventStore {
    /// The advisory lock key of partition creation ("alstats" and 2).
    static let partitionLockKey: Int64 = 0x616C_7374_6174_7302

    /// The month partition of an instant: its name and range [start, end) in ms since the Unix epoch, or `nil`
    /// for an instant before 1900 or after 9999 (kept in ``outOfRangePartition(of:)``).
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
    /// transaction (``createPartitions(_:on:)`` says how, and whom it waits for). A timestamp in the
    /// month of the one before it is passed over without working out its month again (a batch's timestamps mostly
    /// share a month, and a partition's name is a `String` to make).
    /// - Returns: the partitions the timestamps fall in, by name: the write notes them in ``partitionsToSummarize``
    ///   once it has committed (noted before, a summary between the note and the commit would find nothing yet and
    ///   forget them).
    @discardableResult
    func ensurePartitions(for timestamps: some Sequence<Int64>) async throws(StoreError) -> Set<String> {
        let (written, missing) = months(of: timestamps)
        guard !missing.isEmpty else { return written }
        try await inTransaction(doing: "creating the month partitions of events") { connection in
            try await self.createPartitions(missing, on: connection)
        }
        partitions.withLock { $0.formUnion(missing.map(\.start)) }
        return written
    }

    /// The partitions `timestamps` fall in, by name, and the months among them whose partition this store has not
    /// seen made (nor one of `madeAlso`, by start), in order.
    func months(
        of timestamps: some Sequence<Int64>, madeAlso: Set<Int64> = []
    ) -> (written: Set<String>, missing: [(name: String, start: Int64, end: Int64)]) {
        var missing: [Int64: (name: String, start: Int64, end: Int64)] = [:]
        var written: Set<String> = []
        let known = partitions.withLock { $0 }
        var month: Range<Int64> = 0..<0
        for timestamp in timestamps where !month.contains(timestamp) {
            guard let partition = PostgresEventStore.monthPartition(of: timestamp) else {
                written.insert(Self.outOfRangePartition(of: timestamp))
                continue
            }
            month = partition.start..<partition.end
            written.insert(partition.name)
            guard !known.contains(partition.start), !madeAlso.contains(partition.start),
                missing[partition.start] == nil
            else { continue }
            missing[partition.start] = partition
        }
        return (written, missing.values.sorted { $0.start < $1.start })
    }

    /// Creates the `partitions` that are not attached to `events` yet, inside the transaction open on `connection`,
    /// under the advisory lock of partition creation (held to its end).
    ///
    /// Each is made as a table of its own (`LIKE events`: the columns with their collations, `NOT NULL`s and
    /// defaults), then attached (`ALTER TABLE events ATTACH PARTITION`, which gives it `events_by_time` with the
    /// parent's options). `CREATE TABLE ... PARTITION OF events` would take `ACCESS EXCLUSIVE` on `events`, and so
    /// wait for every transaction that has written to or read `events` (another server's batch, a strict ingest that
    /// runs for minutes, a long query) while the writers behind it queued. `ATTACH PARTITION` takes `SHARE UPDATE
    /// EXCLUSIVE` on `events`, which no write or read conflicts with (only `VACUUM`, `ANALYZE` or an index build of
    /// `events` itself), and `ACCESS EXCLUSIVE` on the new table; `events` has no default partition (Migrations/postgres/0007),
    /// which it would also lock, waiting for every read that had scanned it.
    ///
    /// A month counts as made when a partition of `events` has its name, or its name and a suffix `_N`. A table of
    /// its name that is not attached is a month detached by hand (archived): it is left alone, and the month's late
    /// events get a partition named `events_YYYY_MM_N`, the first `N` from 1 that names no table.
    func createPartitions(
        _ partitions: [(name: String, start: Int64, end: Int64)], on connection: PostgresConnection
    ) async throws {
        try await run("SELECT pg_advisory_xact_lock(\(PostgresEventStore.partitionLockKey))", on: connection)
        var names = PostgresBindings()
        names.append(partitions.map(\.name))
        let attached = Set(
            try await rows(PostgresSQL.statement("select_attached_months"), names, on: connection) {
                try $0[0].decode(String.self)
            })
        for partition in partitions where !attached.contains(partition.name) {
            var name = partition.name
            var suffix = 0
            while try await tableExists(name, on: connection) {
                suffix += 1
                name = "\(partition.name)_\(suffix)"
            }
            try await run(
                "CREATE TABLE \(name) (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS "
                    + "INCLUDING STORAGE INCLUDING COMPRESSION)", on: connection)
            try await run(
                "ALTER TABLE events ATTACH PARTITION \(name) "
                    + "FOR VALUES FROM (\(partition.start)) TO (\(partition.end))", on: connection)
        }
    }

    /// Whether a table (or any relation) named `name` exists where `events` is looked up.
    private func tableExists(_ name: String, on connection: PostgresConnection) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(name)
        return try await rows("SELECT to_regclass($1) IS NOT NULL", binds, on: connection) {
            try $0[0].decode(Bool.self)
        }.first ?? false
    }

    /// The partition of `events` for an instant before 1900 or after 9999 (Migrations/postgres/0007).
    static func outOfRangePartition(of milliseconds: Int64) -> String {
        milliseconds < 0 ? "events_before_1900" : "events_after_9999"
    }

    /// Summarises the ranges of the time index (`events_by_time`, BRIN: Migrations/postgres/0006) that filled in the
    /// partitions written since the last call, and returns how many it summarised.
    ///
    /// The index summarises a range when autovacuum takes the request a filled range leaves (`autosummarize`), but
    /// autovacuum keeps at most 256 such requests and visits a database about once a minute: a bulk load, or a
    /// collector taking more than about 7,000 events a second, fills ranges faster (a range holds about 1,700
    /// realistic events), and PostgreSQL drops the rest (logging each). An unsummarised range is read by every read
    /// by time, so right after an ingest of 200,000 events a one-minute window read all 12,804 pages of its
    /// partition (87 ms) instead of 1,024 (7.5 ms). An ingest therefore ends with this call (``finishIngest()``),
    /// and a server calls it every so often (``upkeep()``). It takes the partitions' `SHARE UPDATE EXCLUSIVE`
    /// lock, as `VACUUM` does: never waiting for a writer, but for an autovacuum of one of them to be cancelled
    /// (about a second), a `VACUUM` or another process's summaries.
    /// - Parameter lockTimeout: how long to wait for those locks at most.
    /// - Returns: the ranges summarised, or `nil` when a lock was not had in time (the partitions stay noted for
    ///   this store's next call: a server's next upkeep; an ingest's process ends, and autovacuum summarises them
    ///   when it next vacuums the partition).
    /// - Throws: ``StoreError`` when the server could not be reached or refused; the partitions stay noted, as for
    ///   `nil`.
    @discardableResult
    func summarizeTimeIndex(lockTimeout: Duration) async throws(StoreError) -> Int? {
        let written = partitionsToSummarize.withLock { written in
            defer { written.removeAll() }
            return written.sorted()
        }
        guard !written.isEmpty else { return 0 }
        var binds = PostgresBindings()
        binds.append(written)
        let what = "summarising the time index of \(written.joined(separator: ", "))"
        do {
            let summarised: Int? = try await inTransaction(doing: what, lost: Self.noSummary) { connection in
                try await self.setLockTimeout(lockTimeout, on: connection)
                do {
                    return try await self.rows(PostgresSQL.statement("summarize_time_index"), binds, on: connection) {
                        try $0[0].decode(Int.self)
                    }.reduce(0, +)
                } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.lockNotAvailable {
                    return nil  // the transaction is aborted: its COMMIT rolls it back
                }
            }
            if summarised == nil { partitionsToSummarize.withLock { $0.formUnion(written) } }
            return summarised
        } catch {
            partitionsToSummarize.withLock { $0.formUnion(written) }
            throw error
        }
    }

    /// Notes that a write of an ingest committed `events`, and starts summarising the time index's filled ranges
    /// (``summarizeFilledRanges()``) once ``eventsPerIngestSummary`` events came since the last start and none is
    /// under way. The ranges fill while the ingest goes on, and summarising them then takes the server's time while
    /// alstats reads the next lines; left to ``finishIngest()``, their summaries were the ingest's last 90–170 ms
    /// for 200,000 events, with alstats waiting (docs/design/postgres-layout.md, "Summaries").
    func summarizeWhileIngesting(after events: Int) {
        ingestSummaries.withLock { state in
            state.eventsSince += events
            guard state.running == nil, state.eventsSince >= Self.eventsPerIngestSummary else { return }
            state.eventsSince = 0
            state.generation += 1
            let generation = state.generation
            state.running = Task {
                await self.summarizeFilledRanges()
                self.ingestSummaries.withLock { if $0.generation == generation { $0.running = nil } }
            }
        }
    }

    /// How many events an ingest commits between two starts of ``summarizeFilledRanges()``: about ten ranges of the
    /// time index, at about 1,700 realistic events a range.
    static let eventsPerIngestSummary = 16_384

    /// Summarises the ranges of the time index that filled in the partitions written since the last summary
    /// (``partitionsToSummarize``, which it leaves for ``summarizeTimeIndex(lockTimeout:)``), except each
    /// partition's last three, which the writers may still be filling (Statements/summarize_filled_ranges.sql).
    /// It waits at most ``filledRangesLockTimeout`` for a partition's lock, and gives up on any failure: the end of
    /// the ingest summarises whatever is left.
    func summarizeFilledRanges() async {
        let noted = partitionsToSummarize.withLock { $0.sorted() }
        guard !noted.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(noted)
        binds.append(ingestSummaries.withLock { state in noted.map { state.below[$0] ?? 0 } })
        let summarised = try? await inTransaction(doing: "summarising filled ranges", lost: Self.noSummary) {
            connection in
            try await self.setLockTimeout(Self.filledRangesLockTimeout, on: connection)
            return try await self.rows(PostgresSQL.statement("summarize_filled_ranges"), binds, on: connection) {
                (try $0[0].decode(String.self), try $0[2].decode(Int64.self))
            }
        }
        guard let summarised else { return }
        ingestSummaries.withLock { state in
            for (partition, below) in summarised { state.below[partition] = below }
        }
    }

    /// How long a summary during an ingest waits for a partition's lock before leaving its ranges to the ingest's
    /// end.
    static let filledRangesLockTimeout = Duration.milliseconds(100)

    /// Waits for the summary an ingest has under way, if any, and forgets what the ingest summarised.
    func endIngestSummaries() async {
        if let running = ingestSummaries.withLock({ $0.running }) { await running.value }
        ingestSummaries.withLock { state in
            state.running = nil
            state.eventsSince = 0
            state.below = [:]
        }
    }

    /// What a failed summary leaves undone, for its error's message.
    static let noSummary = "those ranges stay without a summary"

    /// Makes the open transaction on `connection` wait at most `timeout` for a lock (at least a millisecond: 0 would
    /// mean no limit); past it, the statement fails with ``lockNotAvailable``.
    func setLockTimeout(_ timeout: Duration, on connection: PostgresConnection) async throws {
        let milliseconds = max(1, timeout.wholeMilliseconds)
        try await run("SET LOCAL lock_timeout = \(milliseconds)", on: connection)
    }

    /// SQLSTATE `lock_not_available`: a lock not had within `lock_timeout`.
    static let lockNotAvailable = "55P03"

    /// How long ``upkeep()`` waits for a partition's lock: another server's summaries of the same partition, or a
    /// `VACUUM`, hold it; the partition is then left for the next call.
    static let upkeepLockTimeout = Duration.seconds(2)

    /// Summarises the time index's ranges that this store's writes filled since the last call
    /// (``summarizeTimeIndex(lockTimeout:)``), waiting at most ``upkeepLockTimeout`` for a partition's lock.
    /// - Returns: ``UpkeepOutcome/deferred(_:)`` when a partition's lock was not had in time (the partitions stay
    ///   noted for the next call).
    @discardableResult
    public func upkeep() async throws(StoreError) -> UpkeepOutcome {
        guard try await summarizeTimeIndex(lockTimeout: Self.upkeepLockTimeout) == nil else { return .done }
        return .deferred(
            "another session held a partition's lock for \(Self.upkeepLockTimeout) (a VACUUM, or another server "
                + "summarising); its time index is summarised on a later call")
    }
}

/// The summaries of the time index that an ingest starts while its writes go on.
struct IngestSummaries {
    /// The summary under way, if any: the end of the ingest waits for it.
    var running: Task<Void, Never>?
    /// Counts the summaries started, so that one that ends clears ``running`` only if it is still the one there.
    var generation = 0
    /// Events committed since the last summary started.
    var eventsSince = 0
    /// By partition, the page below which every range of its time index has its summary.
    var below: [String: Int64] = [:]
}
