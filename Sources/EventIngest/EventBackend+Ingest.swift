import EventStoreInterface
import MeasurementEvents

extension EventBackend {
    /// Imports NDJSON events from `inputs` into any backend through ``writeBatches(_:losses:)`` (or, for a backend
    /// that takes rows of its own, ``IngestRowWriter/writeRows(_:losses:after:claimed:)``), with the
    /// counts of the SQLite store's own ingest (lines read, stored, duplicates,
    /// invalid lines, rejections and cut values by reason into completeness). The SQLite store has its own,
    /// faster ingest; this is the path of a backend without one.
    ///
    /// The lines are read and decoded on a thread of their own (the tuned ingest's reader) and written in chunks of
    /// ``IngestOptions/batchSize`` events, at most ``overlappedChunkLimit``, or every
    /// ``IngestOptions/commitInterval``, one transaction each, with the losses counted since the last chunk. A
    /// backend that takes the events as its own rows (``IngestRowWriter``, PostgreSQL) has them made on the reader's
    /// thread, from the lines' bytes where it can. Two
    /// chunks are in flight at once (``writeBatches(_:losses:after:claimed:)``): the next one is prepared and
    /// inserted while the one before writes its rollups and commits, and claims its ids only after the one before
    /// has claimed its own, so the first of two events with one id is the one kept. Each event is redacted by the
    /// backend. With ``IngestOptions/strict`` nothing is stored when a line is invalid: a backend that takes rows
    /// of its own writes the chunks one after another into one transaction as they are read
    /// (``IngestRowWriter/inOneTransaction(_:)``), rolls it back at the first invalid line and reads the rest,
    /// holding nothing, to report its invalid lines; any other backend has every event held in memory and written in
    /// one transaction at the end.
    ///
    /// ```swift
    /// let summary = try await backend.ingestNDJSON([IngestInput(path: "events.ndjson")]) { print($0) }
    /// ```
    /// - Parameters:
    ///   - onInvalidLine: called with each invalid line as `file:line: reason`, in input order.
    ///   - progress: called about every 65,536 lines with the summary so far, and once at the end.
    /// - Throws: ``IngestError`` for a missing or unreadable input, ``StoreError`` for the database; the
    ///   chunks written before stay stored (an ingest re-run stores the rest, without duplicates).
    public func ingestNDJSON(
        _ inputs: [IngestInput], options: IngestOptions = IngestOptions(),
        onInvalidLine: (IngestError) -> Void, progress: ((IngestSummary) -> Void)? = nil
    ) async throws -> IngestSummary {
        // The backend redacts what it writes, with its own redactor: the reader leaves the events as they are.
        var run = BackendIngestRun<DecodedEvents>(
            location: location, chunkLimit: Self.overlappedChunkLimit, options: options,
            write: { rows, losses, previous, turn throws(StoreError) in
                try await self.writeBatches(rows.map(\.events), losses: losses, after: previous, claimed: turn)
                    .reduce(0, +)
            })
        return try await run.ingest(
            inputs, makeRows: { DecodedEvents(capacity: 1_024) }, onInvalidLine: onInvalidLine, progress: progress)
    }

    /// The most events the generic ingest writes in one transaction (`--batch-size` may ask for fewer): a
    /// database server reached over a connection takes overlapped chunks of this size faster than large ones.
    /// PostgreSQL on 2 cores (`alstats-bench postgres`, 200,000 realistic events, 2026-11-24): one chunk of
    /// 100,000 at a time ingests 27,500 events/s; two chunks in flight of 2,048 events 47,000, of 4,096 54,000,
    /// of 8,192 65,000 to 70,000, of 16,384 60,000, of 32,768 51,000.
    public static var overlappedChunkLimit: Int { 8_192 }
}

extension IngestRowWriter {
    /// The generic ingest of a backend that takes the events as its own rows
    /// (``EventBackend/ingestNDJSON(_:options:onInvalidLine:progress:)``), with the rows made on the reader's thread
    /// and, with ``IngestOptions/strict``, written chunk by chunk into one transaction (``inOneTransaction(_:)``).
    package func ingestNDJSON(
        _ inputs: [IngestInput], options: IngestOptions = IngestOptions(),
        onInvalidLine: (IngestError) -> Void, progress: ((IngestSummary) -> Void)? = nil
    ) async throws -> IngestSummary {
        var run = BackendIngestRun<Rows>(
            location: location, chunkLimit: Self.overlappedChunkLimit, options: options,
            write: { rows, losses, previous, turn throws(StoreError) in
                try await self.writeRows(rows, losses: losses, after: previous, claimed: turn)
            },
            finish: { () throws(StoreError) in try await self.finishIngest() })
        return try await run.ingest(
            inputs, makeRows: { self.makeIngestRows() }, onInvalidLine: onInvalidLine, progress: progress,
            inOneTransaction: { run, pipeline, onInvalidLine, progress in
                try await run.ingestInOneTransaction(
                    from: pipeline, into: self, onInvalidLine: onInvalidLine, progress: progress)
            })
    }
}

/// One generic ingest between the pipeline's batches: the summary so far, the rows and losses not yet written, the
/// writes in flight, and when to write next. `Rows` are the backend's own (``IngestRowWriter``), or
/// ``DecodedEvents`` for any other backend: the run writes them through `write`.
private struct BackendIngestRun<Rows: IngestRows> {
    /// Writes rows and losses in one transaction, as one of a line of overlapping writes
    /// (``EventBackend/writeBatches(_:losses:after:claimed:)``), and counts the events that were new.
    typealias Write = @Sendable ([Rows], [DropReason: Int], WriteTurn?, WriteTurn) async throws(StoreError) -> Int
    /// A strict ingest into one transaction (``ingestInOneTransaction(from:into:onInvalidLine:progress:)``).
    typealias Transacting = (
        inout BackendIngestRun, IngestPipeline<Rows>, (IngestError) -> Void, ((IngestSummary) -> Void)?
    ) async throws -> Void

    /// Where the backend stores, for messages.
    let location: String
    /// The most events one write takes (``EventBackend/overlappedChunkLimit``).
    let chunkLimit: Int
    let options: IngestOptions
    private let write: Write
    /// What a backend that takes rows of its own does once every write is committed
    /// (``IngestRowWriter/finishIngest()``).
    private let finishWrites: (@Sendable () async throws(StoreError) -> Void)?
    private(set) var summary = IngestSummary()
    private var pendingRows: [Rows] = []
    private var pendingEvents = 0
    private var pendingLosses: [DropReason: Int] = [:]
    private var chunkStart: Int64
    private var nextProgress = 1 << 16
    /// The writes started and not yet awaited, oldest first, with how many events each held.
    private var inFlight: [(write: Task<Result<Int, StoreError>, Never>, events: Int)] = []
    /// The turn the last write started opens once it has claimed its ids.
    private var lastTurn: WriteTurn?
    /// How many writes may be in flight at once.
    private static var overlap: Int { 2 }

    init(
        location: String, chunkLimit: Int, options: IngestOptions, write: @escaping Write,
        finish: (@Sendable () async throws(StoreError) -> Void)? = nil
    ) {
        self.location = location
        self.chunkLimit = chunkLimit
        self.options = options
        self.write = write
        self.finishWrites = finish
        chunkStart = options.clock.nowMilliseconds()
    }

    /// Reads `inputs` into the rows `makeRows` makes and writes them in chunks. With ``IngestOptions/strict``, a
    /// backend with a transaction of its own (`inOneTransaction`) has the chunks written into it as they are read;
    /// any other has every row held until the end and written in one transaction.
    mutating func ingest(
        _ inputs: [IngestInput], makeRows: @escaping @Sendable () -> Rows, onInvalidLine: (IngestError) -> Void,
        progress: ((IngestSummary) -> Void)?, inOneTransaction: Transacting? = nil
    ) async throws -> IngestSummary {
        for input in inputs where input.path != "-" {
            try input.checkReadable()
        }
        let pipeline = IngestPipeline(inputs: inputs, codec: options.codec, batchSize: 1_024, makeRows: makeRows)
        pipeline.start()
        do {
            if options.strict, let inOneTransaction {
                try await inOneTransaction(&self, pipeline, onInvalidLine, progress)
            } else {
                while let batch = await pipeline.nextBatch() {
                    batch.errors.forEach(onInvalidLine)
                    take(batch)
                    if let failure = batch.failure { throw failure }
                    if isWriteDue { try await writeHeld() }
                    if takeProgressDue() { progress?(summary) }
                }
                pipeline.join()
                try await finish()
            }
        } catch {
            pipeline.cancel()
            await settle()
            throw error
        }
        progress?(summary)
        return summary
    }

    /// Counts the lines, errors, losses and near misses of `batch` and holds its rows for the next write.
    private mutating func take(_ batch: IngestPipeline<Rows>.Batch) {
        summary.lines += batch.lines
        summary.add(batch.nearMisses)
        summary.bytes = max(summary.bytes, batch.bytes)
        summary.invalid += batch.errors.count
        summary.limited.merge(batch.losses, uniquingKeysWith: +)
        pendingLosses.merge(batch.losses, uniquingKeysWith: +)
        if batch.rows.count > 0 {
            pendingRows.append(batch.rows)
            pendingEvents += batch.rows.count
        }
    }

    /// Whether the held rows are due to be written (never before the end when strict).
    private var isWriteDue: Bool { !options.strict && isChunkDue }

    /// Whether the held rows make a chunk: as many as a write takes, or held for the commit interval.
    private var isChunkDue: Bool {
        guard pendingEvents > 0 else { return false }
        return pendingEvents >= min(options.batchSize, chunkLimit)
            || options.clock.nowMilliseconds() - chunkStart >= options.commitIntervalMilliseconds
    }

    /// A strict ingest into a backend that takes rows of its own: the chunks go into one transaction as they are
    /// read, one after another. The first invalid line rolls the transaction back at once (it holds ids and rows
    /// other writers may wait for); the rest of the input is then read for its invalid lines, holding nothing, and
    /// the summary counts nothing stored, as the SQLite store's strict ingest does.
    mutating func ingestInOneTransaction<Writer: IngestRowWriter>(
        from pipeline: IngestPipeline<Rows>, into rowWriter: Writer, onInvalidLine: (IngestError) -> Void,
        progress: ((IngestSummary) -> Void)?
    ) async throws where Writer.Rows == Rows {
        let committed = try await rowWriter.inOneTransaction { transaction in
            while let batch = await pipeline.nextBatch() {
                try takeForStrictIngest(batch, onInvalidLine: onInvalidLine, progress: progress)
                if summary.invalid > 0 { return false }
                if isChunkDue { try await write(into: transaction) }
            }
            pipeline.join()
            try await write(into: transaction)
            return true
        }
        guard committed else {
            summary.stored = 0  // rolled back: the progress reports of the rest count nothing stored
            summary.duplicates = 0
            while let batch = await pipeline.nextBatch() {
                try takeForStrictIngest(batch, onInvalidLine: onInvalidLine, progress: progress)
            }
            pipeline.join()
            summary.committed = false
            summary.limited = [:]
            return
        }
        await finishRows()
    }

    /// Reports the invalid lines of `batch`, counts it and holds its rows, or, once a line was invalid, nothing
    /// (nothing will be stored); reports progress when due.
    /// - Throws: the batch's failure (the input could not be read).
    private mutating func takeForStrictIngest(
        _ batch: IngestPipeline<Rows>.Batch, onInvalidLine: (IngestError) -> Void,
        progress: ((IngestSummary) -> Void)?
    ) throws {
        batch.errors.forEach(onInvalidLine)
        take(batch)
        if let failure = batch.failure { throw failure }
        if summary.invalid > 0 { dropHeld() }
        if takeProgressDue() { progress?(summary) }
    }

    /// Writes the held rows and losses into the strict ingest's open transaction, and counts what it stored.
    private mutating func write<Transaction: IngestRowTransaction<Rows>>(
        into transaction: Transaction
    ) async throws(StoreError) {
        guard pendingEvents > 0 || pendingLosses.values.contains(where: { $0 > 0 }) else { return }
        let stored = try await transaction.write(pendingRows, losses: pendingLosses)
        summary.stored += stored
        summary.duplicates += pendingEvents - stored
        dropHeld()
    }

    /// Forgets the held rows and losses (written, or never to be).
    private mutating func dropHeld() {
        pendingRows.removeAll()
        pendingEvents = 0
        pendingLosses = [:]
        chunkStart = options.clock.nowMilliseconds()
    }

    /// Whether a progress report is due (about every 65,536 lines); the next one is then due 65,536 lines later.
    private mutating func takeProgressDue() -> Bool {
        guard summary.lines >= nextProgress else { return false }
        nextProgress = summary.lines + (1 << 16)
        return true
    }

    /// Starts writing the held rows and losses in one transaction, and, when as many writes as may overlap are in
    /// flight, waits for the oldest and counts what it stored.
    private mutating func writeHeld() async throws(StoreError) {
        guard pendingEvents > 0 || pendingLosses.values.contains(where: { $0 > 0 }) else { return }
        let (write, rows, losses, previous, turn) = (self.write, pendingRows, pendingLosses, lastTurn, WriteTurn())
        let task = Task { () async -> Result<Int, StoreError> in
            do throws(StoreError) {
                return .success(try await write(rows, losses, previous, turn))
            } catch {
                return .failure(error)
            }
        }
        inFlight.append((task, pendingEvents))
        lastTurn = turn
        dropHeld()
        while inFlight.count >= Self.overlap {
            try await awaitOldest()
        }
    }

    /// Waits for the oldest write in flight and counts it; throws its failure (the ingest then ends, and
    /// ``settle()`` waits for the rest).
    private mutating func awaitOldest() async throws(StoreError) {
        let (write, events) = inFlight.removeFirst()
        let stored = try await write.value.get()
        summary.stored += stored
        summary.duplicates += events - stored
    }

    /// Asks a backend that takes rows of its own to bring up to date what the ingest's writes left for later
    /// (``IngestRowWriter/finishIngest()``), once every event is committed; a failure is reported in the summary
    /// (``IngestSummary/unfinished``), not thrown: the ingest did what it was asked.
    private mutating func finishRows() async {
        do throws(StoreError) {
            try await finishWrites?()
        } catch {
            summary.unfinished = error.message
        }
    }

    /// Waits for every write in flight (after a failure: what they stored is counted, their errors dropped).
    private mutating func settle() async {
        while !inFlight.isEmpty {
            try? await awaitOldest()
        }
    }

    /// Writes what is held and waits for every write, or, for a strict ingest with an invalid line, nothing at all.
    private mutating func finish() async throws(StoreError) {
        guard options.strict, summary.invalid > 0 else {
            try await writeHeld()
            while !inFlight.isEmpty {
                try await awaitOldest()
            }
            await finishRows()
            return
        }
        pendingRows.removeAll()
        summary.committed = false
        summary.limited = [:]
    }
}
