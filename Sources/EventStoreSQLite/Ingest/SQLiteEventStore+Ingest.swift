import EventIngest
import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

extension SQLiteEventStore: NDJSONIngester {
    /// Imports NDJSON events from `inputs`, redacted, each id once.
    ///
    /// Valid lines are committed in batches while invalid ones are reported to `onInvalidLine` as
    /// `file:line: reason`; with ``IngestOptions/strict`` one invalid line commits nothing.
    /// - Parameters:
    ///   - progress: called about every 65,536 lines with the summary so far.
    /// - Throws: ``IngestError`` for a missing or unreadable input, ``SQLiteError`` for the database.
    public func ingest(
        _ inputs: [IngestInput], options: IngestOptions = IngestOptions(),
        onInvalidLine: (IngestError) -> Void, progress: ((IngestSummary) -> Void)? = nil
    ) throws -> IngestSummary {
        // Fail before reading anything when an input is missing.
        for input in inputs where input.path != "-" {
            try input.checkReadable()
        }
        return try withStoreRethrowing { store in
            let cacheBefore = try store.connection.scalarInt("PRAGMA cache_size")
            try store.connection.execute("PRAGMA cache_size = -\(max(1, options.pageCacheBytes >> 10))")
            defer { try? store.connection.execute("PRAGMA cache_size = \(cacheBefore)") }
            // Small hand-over batches keep memory low; commits still come every `batchSize` events.
            // Each batch is encoded (EncodedIngestRows) by the reader's thread when the queue is full, else the writer's.
            let redactor = store.writer.redactor
            let packers = store.writer.packers
            let pipeline = IngestPipeline(
                inputs: inputs, codec: options.codec, batchSize: 1_024,
                makeRows: { EncodedIngestRows(redactor: redactor, packers: packers, capacity: 1_024) })
            pipeline.start()
            var run = IngestRun(writer: store.writer, options: options)
            run.inputBytes = inputs.reduce(0 as Int?) { total, input in
                input.regularFileBytes.flatMap { bytes in total.map { $0 + bytes } }
            }
            do {
                while let batch = pipeline.next() {
                    batch.errors.forEach(onInvalidLine)
                    try run.take(batch)
                    pipeline.recycle(batch.rows)
                    if let failure = batch.failure { throw failure }
                    if run.takeProgressDue() { progress?(run.summary) }
                }
                pipeline.join()
                try run.finish()
            } catch {
                pipeline.cancel()
                store.writer.rollback()
                throw error
            }
            progress?(run.summary)
            return run.summary
        }
    }
}

/// One ingest between the pipeline's batches: the summary so far, and when to commit (every
/// ``IngestOptions/batchSize`` events or ``IngestOptions/commitInterval``, never when strict) and report progress.
private struct IngestRun {
    let writer: EventWriter
    let options: IngestOptions
    private(set) var summary = IngestSummary()
    private var uncommitted = 0
    private var transactionStart: Int64
    private var nextProgress = 1 << 16
    /// The inputs' bytes when all are regular files: the events still to come are estimated from them.
    var inputBytes: Int?

    init(writer: EventWriter, options: IngestOptions) {
        self.writer = writer
        self.options = options
        transactionStart = options.clock.nowMilliseconds()
    }

    /// Whether a progress report is due (about every 65,536 lines); the next one is then due 65,536 lines later.
    mutating func takeProgressDue() -> Bool {
        guard summary.lines >= nextProgress else { return false }
        nextProgress = summary.lines + (1 << 16)
        return true
    }

    /// Writes the events of `batch` (encoded) and counts its lines, errors, losses and near misses.
    mutating func take(_ batch: IngestPipeline<EncodedIngestRows>.Batch) throws(SQLiteError) {
        summary.lines += batch.lines
        summary.add(batch.nearMisses)
        summary.bytes = max(summary.bytes, batch.bytes)
        summary.invalid += batch.errors.count
        summary.limited.merge(batch.losses, uniquingKeysWith: +)
        if let inputBytes, summary.lines > 0, batch.bytes > 0, inputBytes > batch.bytes {
            // The lines still to read, at the average length so far: the id filter is sized for them once.
            let perLine = Double(batch.bytes) / Double(summary.lines)
            writer.ids.expectedNewKeys = Int(Double(inputBytes - batch.bytes) / perLine)
        }
        var rows = batch.rows
        rows.seal()  // when the reader left it to this thread
        if let encoded = rows.encoded, !encoded.isEmpty {
            // Not atomic: any error rolls the whole transaction back.
            let stored = try writer.write(encoded: [encoded])[0]
            summary.stored += stored
            summary.duplicates += encoded.count - stored
            uncommitted += encoded.count
            let now = options.clock.nowMilliseconds()
            if !options.strict,
                uncommitted >= options.batchSize || now - transactionStart >= options.commitIntervalMilliseconds
            {
                try writer.commit()
                FreedMemory.release()
                uncommitted = 0
                transactionStart = now
            }
        }
        if !batch.losses.isEmpty {
            // In the ingest's transaction: a strict ingest that commits nothing counts nothing.
            try writer.beginIfNeeded()
            try writer.recordLosses(batch.losses)
        }
    }

    /// Commits what is left, or, for a strict ingest with an invalid line, rolls everything back.
    mutating func finish() throws(SQLiteError) {
        guard options.strict, summary.invalid > 0 else { return try writer.commit() }
        writer.rollback()
        summary.committed = false
        summary.stored = 0
        summary.duplicates = 0
        summary.limited = [:]
    }
}
