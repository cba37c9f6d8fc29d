import EventIngest
import EventStoreInterface
import MeasurementEvents
import PostgresNIO

extension PostgresEventStore {
    /// Writes the event batches of several requests in one transaction and counts, per batch, the events newly
    /// stored, as ``SQLiteEventStore/writeBatches(_:losses:)`` does.
    ///
    /// The events are redacted with the store's ``Redactor``'s keys; an id already stored (by any writer, at any
    /// time, or earlier in this call) is a duplicate: acknowledged, not stored twice. The ids are claimed with `COPY
    /// event_ids` (or, when one is stored already, `INSERT ... ON CONFLICT DO NOTHING`), the events whose id was
    /// claimed go in with `COPY`, their rollups
    /// (aggregated per group in Swift) with one upsert per table, `losses` and the call's own count of values its
    /// redaction replaced whole (`altered`) into completeness, all in one transaction: a failure, the loss of the
    /// connection included, stores and counts nothing of the call.
    ///
    /// ```swift
    /// let stored = try await store.writeBatches([requestA.events, requestB.events], losses: [.bufferFull: 2])
    /// ```
    /// - Parameters:
    ///   - batches: the events of each request.
    ///   - losses: loss counts to add to completeness, by reason.
    /// - Returns: for each batch, in order, how many of its events were new.
    /// - Throws: ``StoreError`` (`.io`) when the transaction could not be committed; nothing of the call is stored.
    public func writeBatches(
        _ batches: [[MeasurementEvent]], losses: [DropReason: Int] = [:]
    ) async throws(StoreError) -> [Int] {
        try await write(
            batches.map { PostgresEventRows($0, redactor: redactor) }, losses: losses, after: nil, claimed: nil)
    }

    /// ``writeBatches(_:losses:)`` overlapping the write before it: the events are redacted and their `COPY` lines
    /// made at once; the transaction begins once `previous` is open, and `claimed` opens as soon as the ids are claimed
    /// (or when the call ends without it), while the rollups and the commit follow. An event whose id the write
    /// before holds (its turn's ``WriteTurn/heldIDs``) is a duplicate of it, redacted and counted but not claimed:
    /// claiming it would only wait for that write's commit to find it taken.
    /// - Returns: for each batch, in order, how many of its events were new.
    /// - Throws: ``StoreError`` (`.io`) when the transaction could not be committed; nothing of the call is stored.
    public func writeBatches(
        _ batches: [[MeasurementEvent]], losses: [DropReason: Int], after previous: WriteTurn?, claimed: WriteTurn
    ) async throws(StoreError) -> [Int] {
        try await claimed.opening { () async throws(StoreError) in
            try await write(
                batches.map { PostgresEventRows($0, redactor: redactor) }, losses: losses, after: previous,
                claimed: claimed)
        }
    }

    /// Writes the events of `rows` (one batch each) as ``writeBatches(_:losses:after:claimed:)`` writes batches.
    private func write(
        _ rows: [PostgresEventRows], losses: [DropReason: Int], after previous: WriteTurn?, claimed: WriteTurn?
    ) async throws(StoreError) -> [Int] {
        let prepared = PreparedWrite(rows, losses: losses)
        guard !prepared.isEmpty else {
            await previous?.wait()
            return Array(repeating: 0, count: rows.count)
        }
        await previous?.wait()
        let held = await previous?.heldIDs ?? []
        let now = clock.nowMilliseconds()
        var partitionMissing = false
        func writeOnce() async throws(StoreError) -> [Int] {
            let written = try await ensurePartitions(for: partitionTimestamps(prepared.plan.timestamps))
            let stored = try await inTransaction(doing: "writing \(prepared.plan.candidates.count) events") {
                connection in
                do {
                    return try await self.write(prepared, skipping: held, claimed: claimed, now: now, on: connection)
                } catch let error as PSQLError where Self.isNoPartitionForRow(error) {
                    partitionMissing = true
                    throw error
                }
            }
            partitionsToSummarize.withLock { $0.formUnion(written) }
            return stored
        }
        do {
            return try await writeOnce()
        } catch {
            guard partitionMissing else { throw error }
            // A month this store made or found was detached or dropped by hand since: forget what it knew and write
            // again, once, making the months that are missing (the transaction stored nothing).
            partitions.withLock { $0.removeAll() }
            return try await writeOnce()
        }
    }

    /// Whether `error` is PostgreSQL's for a row no partition of `events` takes: SQLSTATE `23514` (`check_violation`,
    /// which a `CHECK` of another table gives too) naming `events` as its table.
    static func isNoPartitionForRow(_ error: PSQLError) -> Bool {
        error.serverInfo?[.sqlState] == "23514" && error.serverInfo?[.tableName] == "events"
    }

    /// Writes `prepared` inside the transaction open on `connection` (its partitions made): the ids claimed but
    /// the `held` ones, the events, their rollups and the counts for completeness.
    /// - Returns: how many events of each batch were stored.
    private func write(
        _ prepared: PreparedWrite, skipping held: Set<EventID>, claimed: WriteTurn?, now: Int64,
        on connection: PostgresConnection
    ) async throws -> [Int] {
        let written = try await write(
            prepared.plan, prepared.ids, skipping: held, claimed: claimed, on: connection)
        try await written.rollups.write(on: connection, store: self)
        var counts = written.deviceLosses
        counts.merge(prepared.counts(at: now), uniquingKeysWith: +)
        try await addCompleteness(counts, now: now, on: connection)
        return written.stored
    }

    /// Writes `events` (redacted) in one transaction; an id already stored is skipped.
    /// - Returns: how many events were new.
    /// - Throws: ``StoreError`` when the transaction could not be committed; then nothing was stored.
    @discardableResult
    public func write(_ events: [MeasurementEvent]) async throws(StoreError) -> Int {
        try await writeBatches([events]).first ?? 0
    }

    /// Adds loss counts to the completeness table, in a transaction of their own.
    /// - Throws: ``StoreError`` when the transaction could not be committed.
    public func recordLosses(_ losses: [DropReason: Int]) async throws(StoreError) {
        _ = try await writeBatches([], losses: losses)
    }

    /// Claims the plan's ids but those the write before holds (`held`, its turn's ``WriteTurn/heldIDs``: their
    /// events are duplicates of it), opens `turn` with the plan's ids, then stores the events whose id it claimed
    /// with `COPY` (their lines, in time order) and writes their rollups, inside the open transaction; `ids` are the
    /// plan's ``PostgresWritePlan/idLines()``. A device's loss record (``DeviceLoss``) is stored as new counts in
    /// completeness as `device:REASON`, as the SQLite store counts it, and in no rollup; sent again, it is a
    /// duplicate and counts nothing.
    ///
    /// The rollups are returned, not written: the caller upserts them (a strict ingest adds them up over its chunks
    /// and upserts them once, at its end).
    /// - Returns: how many events of each batch were stored, the loss counts of the new loss records, and the rollups
    ///   of the stored events.
    func write(
        _ plan: PostgresWritePlan, _ ids: ByteBuffer?, skipping held: Set<EventID>,
        claimed turn: WriteTurn?, on connection: PostgresConnection
    ) async throws -> WrittenEvents {
        var stored = Array(repeating: 0, count: plan.batchCount)
        var deviceLosses: [CompletenessKey: Int] = [:]
        var rollups = PostgresRollups()
        guard let ids else { return WrittenEvents(stored, deviceLosses, rollups) }
        let order = plan.timeOrder()
        var skipped = held.isEmpty ? nil : plan.candidates.map { held.contains($0.id) }
        let refused = try await refuseBeforeHorizon(plan, skipping: &skipped, on: connection)
        if refused > 0 { deviceLosses[CompletenessKey(.beforeRetention, at: clock.nowMilliseconds())] = refused }
        if skipped?.contains(true) != true { skipped = nil }
        let claimed =
            skipped?.contains(false) == false
            ? Array(repeating: false, count: plan.candidates.count)
            : try await claim(plan, ids, skipping: skipped, on: connection)
        await turn?.open(holding: plan.idSet)
        guard claimed.contains(true) else { return WrittenEvents(stored, deviceLosses, rollups) }
        var groupCounts = plan.batches.map { [Int](repeating: 0, count: $0.groups.count) }
        // The claimed lines in time order, as runs of lines that lie together in their rows' text (most do: a file's
        // lines come about in time order), sent without copying them again.
        var runs: [(batch: Int, range: Range<Int>)] = []
        plan.batches.withUnsafeBufferPointer { batches in
            for index in order where claimed[index] {
                let candidate = plan.candidates[index]
                let (batch, position) = (candidate.batch, candidate.position)
                let range = batches[batch].range(of: position)
                if let last = runs.last, last.batch == batch, last.range.upperBound == range.lowerBound {
                    runs[runs.count - 1].range = last.range.lowerBound..<range.upperBound
                } else {
                    runs.append((batch, range))
                }
                stored[batch] += 1
                if let loss = batches[batch].losses.isEmpty ? nil : batches[batch].losses[position] {
                    // Counted on the day of the record: when the device counted the loss.
                    let day = CompletenessKey(loss.collectorReason, at: batches[batch].timestamps[position])
                    deviceLosses[day, default: 0] += loss.count
                } else {
                    groupCounts[batch][batches[batch].group[position]] += 1
                    if !batches[batch].links.isEmpty, let link = batches[batch].links[position] {
                        rollups.add(link: link)
                    }
                }
            }
        }
        for (batch, counts) in groupCounts.enumerated() {
            for (group, count) in counts.enumerated() where count > 0 {
                rollups.add(count, to: plan.batches[batch].groups[group])
            }
        }
        try await copy(Self.pieces(of: runs, in: plan.batches), on: connection)
        return WrittenEvents(stored, deviceLosses, rollups)
    }

    /// Claims the plan's ids but the `skipped` ones: all at once with ``claimAll(_:on:)`` unless the store's last
    /// claim met a stored id (``claimsMeetStoredIDs``), else, or when that fails, with Statements/claim_ids.sql,
    /// which skips the stored ones.
    /// - Returns: for each candidate, whether its id was claimed.
    private func claim(
        _ plan: PostgresWritePlan, _ ids: ByteBuffer, skipping skipped: [Bool]?, on connection: PostgresConnection
    ) async throws -> [Bool] {
        let lines = skipped.map { PostgresWritePlan.idLines(ids, skipping: $0) } ?? ids
        if !claimsMeetStoredIDs.withLock({ $0 }), try await claimAll(lines, on: connection) {
            return skipped?.map { !$0 } ?? Array(repeating: true, count: plan.candidates.count)
        }
        var ids = PostgresBindings()
        let sent = plan.candidates.indices.filter { skipped?[$0] != true }.map { plan.candidates[$0].id.description }
        ids.append(sent)
        let returned = try await self.rows(PostgresSQL.statement("claim_ids"), ids, on: connection) { row in
            try row[0].decode(String.self)
        }
        claimsMeetStoredIDs.withLock { $0 = returned.count < sent.count }
        return plan.claimed(returned)
    }

    /// Claims every id of a plan at once (`ids`, its ``PostgresWritePlan/idLines()``), the way most batches'
    /// ids are met: new. `COPY event_ids` checks no conflict ahead, which makes it the cheapest insert PostgreSQL
    /// has (for 174,393 ids in chunks of 8,192, timed in psql: 0.38–0.45 s against 1.10–1.35 s for
    /// Statements/claim_ids.sql). An id already stored, or held by another open transaction that then commits it,
    /// fails the `COPY` with a unique violation (SQLSTATE 23505); the savepoint around it is then rolled back, the
    /// claim undone whole, and the caller claims with `ON CONFLICT DO NOTHING` instead. The ids go in the plan's
    /// order, sorted, as that claim sends them, so that writers wait on each other's ids in one order.
    /// - Returns: whether every id was claimed; false when none was (and the caller is to claim with `ON
    ///   CONFLICT`, which also says whether the next write may try `COPY` again: ``claimsMeetStoredIDs``).
    private func claimAll(_ ids: ByteBuffer, on connection: PostgresConnection) async throws -> Bool {
        try await run("SAVEPOINT claim", on: connection)
        do {
            try await connection.copyFrom(table: "event_ids", columns: ["id"], logger: logger) { writer in
                try await writer.write(ids)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.uniqueViolation {
            try await run("ROLLBACK TO SAVEPOINT claim", on: connection)
            return false
        }
        try await run("RELEASE SAVEPOINT claim", on: connection)
        return true
    }

    /// SQLSTATE `unique_violation`.
    static let uniqueViolation = "23505"

    /// The runs' bytes as buffers to send: slices of the rows' text when they are few (a file's lines in about time
    /// order), else copied into one buffer, since each buffer sent costs a hop to the connection's event loop.
    private static func pieces(
        of runs: [(batch: Int, range: Range<Int>)], in batches: [PostgresEventRows]
    ) -> [ByteBuffer?] {
        guard runs.count > 64 else {
            return runs.map { batches[$0.batch].text.getSlice(at: $0.range.lowerBound, length: $0.range.count) }
        }
        var text = ByteBuffer()
        text.reserveCapacity(runs.reduce(0) { $0 + $1.range.count })
        for run in runs {
            _ = batches[run.batch].text.withUnsafeReadableBytes {
                text.writeBytes(UnsafeRawBufferPointer(rebasing: $0[run.range]))
            }
        }
        return [text]
    }

    /// Sends `pieces` (lines of `COPY`'s text format, slices of the rows' text) into `events`, in pieces of at most
    /// 1 MiB.
    func copy(_ pieces: [ByteBuffer?], on connection: PostgresConnection) async throws {
        try await connection.copyFrom(table: "events", columns: PostgresWritePlan.columns, logger: logger) { writer in
            for piece in pieces {
                guard var piece else { preconditionFailure("a line's range lies within the text it was made in") }
                while let part = piece.readSlice(length: min(piece.readableBytes, 1 << 20)), part.readableBytes > 0 {
                    try await writer.write(part)
                }
            }
        }
    }

    /// Adds `counts` to completeness inside the open transaction, stamped `now`.
    func addCompleteness(_ counts: [CompletenessKey: Int], now: Int64, on connection: PostgresConnection) async throws {
        let sorted = counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        guard !sorted.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(sorted.map(\.key.kind))
        binds.append(sorted.map(\.key.reason))
        binds.append(sorted.map(\.key.day))
        binds.append(sorted.map { Int64($0.value) })
        binds.append(now)
        try await run(PostgresSQL.statement("upsert_completeness"), binds, on: connection)
    }
}

extension PostgresEventStore: IngestRowWriter, NDJSONIngester {
    /// `alstats ingest` on PostgreSQL: the generic ingest with the events made into `COPY` rows on the reader's thread
    /// (``IngestRowWriter/ingestNDJSON(_:options:onInvalidLine:progress:)``).
    public func ingest(
        _ inputs: [IngestInput], options: IngestOptions, onInvalidLine: (IngestError) -> Void,
        progress: ((IngestSummary) -> Void)?
    ) async throws -> IngestSummary {
        try await ingestNDJSON(inputs, options: options, onInvalidLine: onInvalidLine, progress: progress)
    }

    /// Rows of `COPY` lines redacted with the store's keys: an ingest makes them on its reader thread.
    package func makeIngestRows() -> PostgresEventRows { PostgresEventRows(redactor: redactor) }

    /// Writes the events of `rows` (made by ``makeIngestRows()``) as ``writeBatches(_:losses:after:claimed:)``
    /// writes batches.
    /// - Returns: how many events were new.
    /// - Throws: ``StoreError`` (`.io`) when the transaction could not be committed; nothing of the call is stored.
    package func writeRows(
        _ rows: [PostgresEventRows], losses: [DropReason: Int], after previous: WriteTurn?, claimed: WriteTurn
    ) async throws(StoreError) -> Int {
        try await claimed.opening { () async throws(StoreError) in
            let stored = try await write(rows, losses: losses, after: previous, claimed: claimed).reduce(0, +)
            summarizeWhileIngesting(after: rows.reduce(0) { $0 + $1.count })
            return stored
        }
    }

    /// Summarises the time index's ranges the ingest filled (``summarizeTimeIndex(lockTimeout:)``), waiting at most
    /// ``finishLockTimeout`` for a partition's lock: an autovacuum of the partition is cancelled for it after
    /// `deadlock_timeout` (a second by default), but a `VACUUM` run by hand may hold it for minutes, and the ingest's
    /// events are all committed by now.
    /// - Throws: ``StoreError`` when the summaries were not done (the server could not be reached or refused, or the
    ///   lock was held too long), saying that every event is stored and what summarises the ranges instead.
    package func finishIngest() async throws(StoreError) {
        await endIngestSummaries()
        let reason: String
        do throws(StoreError) {
            guard try await summarizeTimeIndex(lockTimeout: Self.finishLockTimeout) == nil else { return }
            reason =
                "another session held a partition's lock for \(Self.finishLockTimeout) (a VACUUM, or another process "
                + "summarising)"
        } catch {
            reason = error.message  // says the ranges stay without a summary (``noSummary``), not that events were lost
        }
        let partitions = partitionsToSummarize.withLock { $0.sorted() }.joined(separator: ", ")
        throw StoreError(
            .io, path: location,
            "every event is stored, but the time index of \(partitions) was not summarised: \(reason). Reads by time "
                + "in those months read more pages until autovacuum next vacuums them (or run VACUUM on them); "
                + "ingesting again is not needed")
    }

    /// How long the end of an ingest waits for a partition's lock to summarise its time index.
    static let finishLockTimeout = Duration.seconds(5)
}

/// What a write sends, made before its transaction: the plan of its events, their ids' lines for the claim, and the
/// counts it adds to completeness (on the UTC day of the write: ``counts(at:)``).
struct PreparedWrite {
    let plan: PostgresWritePlan
    /// The plan's ``PostgresWritePlan/idLines()``, or nil when it has no event.
    let ids: ByteBuffer?
    let losses: [DropReason: Int]

    /// Plans the events of `rows` (one batch each), with `losses` and the count of values their redaction replaced
    /// whole.
    init(_ rows: [PostgresEventRows], losses: [DropReason: Int]) {
        // Each rows' redactor keeps a count of its own (as EncodedEvents does): two overlapping writes must not take
        // each other's counts, and a write that fails drops its count with its events.
        let altered = rows.reduce(0) { $0 + $1.redactor.takeConservativeRedactions() }
        plan = PostgresWritePlan(rows: rows)
        var losses = losses.filter { $0.value > 0 }
        if altered > 0 { losses[DropReason(rawValue: Redactor.conservativeReason), default: 0] += altered }
        self.losses = losses
        ids = plan.candidates.isEmpty ? nil : plan.idLines()
    }

    /// The write's own counts on the UTC day of `now`, the time it is written: what it refused, cut or redacted
    /// whole happened as it was received.
    func counts(at now: Int64) -> [CompletenessKey: Int] {
        var counts: [CompletenessKey: Int] = [:]
        counts.add(losses, at: now)
        return counts
    }

    /// Whether there is nothing to write: no event and no count.
    var isEmpty: Bool { plan.candidates.isEmpty && losses.isEmpty }
}

/// What ``PostgresEventStore/write(_:_:skipping:claimed:on:)`` did: how many events of each batch it stored, the
/// loss counts of the new device loss records, and the rollups of the stored events (not written yet).
struct WrittenEvents {
    var stored: [Int]
    /// By the UTC day of each record.
    var deviceLosses: [CompletenessKey: Int]
    var rollups: PostgresRollups

    init(_ stored: [Int], _ deviceLosses: [CompletenessKey: Int], _ rollups: PostgresRollups) {
        (self.stored, self.deviceLosses, self.rollups) = (stored, deviceLosses, rollups)
    }
}
