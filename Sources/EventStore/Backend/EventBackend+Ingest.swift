import MeasurementEvents

extension EventBackend {
    /// Imports NDJSON events from `inputs` into any backend through ``writeBatches(_:losses:)``, with the
    /// counts of ``EventStore/ingest(_:options:onInvalidLine:progress:)`` (lines read, stored, duplicates,
    /// invalid lines, rejections and cut values by reason into completeness). The SQLite store has its own,
    /// faster ingest; this is the path of a backend without one.
    ///
    /// The lines are read and decoded on a thread of their own (the tuned ingest's reader) and written in chunks of
    /// ``IngestOptions/batchSize`` events, or every ``IngestOptions/commitInterval``, one transaction each,
    /// with the losses counted since the last chunk. Each event is redacted by the backend. With
    /// ``IngestOptions/strict``, every event is held in memory and written in one transaction at the end,
    /// and nothing at all when a line was invalid.
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
        for input in inputs where input.path != "-" {
            try EventStore.checkReadable(input)
        }
        // The backend redacts what it writes, with its own redactor: the reader leaves the events as they are.
        let pipeline = IngestPipeline(
            inputs: inputs, codec: options.codec, redactor: Redactor(secretKeys: []), batchSize: 1_024)
        var run = BackendIngestRun(backend: self, options: options)
        do {
            while let batch = pipeline.next() {
                batch.errors.forEach(onInvalidLine)
                run.take(batch)
                if let failure = batch.failure { throw failure }
                if run.isWriteDue { try await run.write() }
                if run.takeProgressDue() { progress?(run.summary) }
            }
            pipeline.join()
            try await run.finish()
        } catch {
            pipeline.cancel()
            throw error
        }
        progress?(run.summary)
        return run.summary
    }
}

/// One generic ingest between the pipeline's batches: the summary so far, the events and losses not yet
/// written, and when to write them.
private struct BackendIngestRun {
    let backend: any EventBackend
    let options: IngestOptions
    private(set) var summary = IngestSummary()
    private var pending: [[MeasurementEvent]] = []
    private var pendingEvents = 0
    private var pendingLosses: [DropReason: Int] = [:]
    private var chunkStart: Int64
    private var nextProgress = 1 << 16

    init(backend: any EventBackend, options: IngestOptions) {
        self.backend = backend
        self.options = options
        chunkStart = options.clock.nowMilliseconds()
    }

    /// Counts the lines, errors and losses of `batch` and holds its events for the next write.
    mutating func take(_ batch: IngestPipeline.Batch) {
        summary.lines += batch.lines
        summary.bytes = max(summary.bytes, batch.bytes)
        summary.invalid += batch.errors.count
        summary.limited.merge(batch.losses, uniquingKeysWith: +)
        pendingLosses.merge(batch.losses, uniquingKeysWith: +)
        if !batch.events.isEmpty {
            pending.append(batch.events)
            pendingEvents += batch.events.count
        }
    }

    /// Whether the held events are due to be written (never before the end when strict).
    var isWriteDue: Bool {
        guard !options.strict, pendingEvents > 0 else { return false }
        return pendingEvents >= options.batchSize
            || options.clock.nowMilliseconds() - chunkStart >= options.commitIntervalMilliseconds
    }

    /// Whether a progress report is due (about every 65,536 lines); the next one is then due 65,536 lines later.
    mutating func takeProgressDue() -> Bool {
        guard summary.lines >= nextProgress else { return false }
        nextProgress = summary.lines + (1 << 16)
        return true
    }

    /// Writes the held events and losses in one transaction and counts what was new.
    mutating func write() async throws(StoreError) {
        guard pendingEvents > 0 || pendingLosses.values.contains(where: { $0 > 0 }) else { return }
        let stored = try await backend.writeBatches(pending, losses: pendingLosses).reduce(0, +)
        summary.stored += stored
        summary.duplicates += pendingEvents - stored
        pending.removeAll()
        pendingEvents = 0
        pendingLosses = [:]
        chunkStart = options.clock.nowMilliseconds()
    }

    /// Writes what is held, or, for a strict ingest with an invalid line, nothing at all.
    mutating func finish() async throws(StoreError) {
        guard options.strict, summary.invalid > 0 else { return try await write() }
        pending.removeAll()
        summary.committed = false
        summary.limited = [:]
    }
}
