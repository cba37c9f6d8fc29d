import MeasurementEvents

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How ``EventStore/ingest(_:options:onInvalidLine:)`` imports NDJSON.
public struct IngestOptions: Sendable {
    /// Commit all or nothing: any invalid line rolls everything back.
    public var strict: Bool
    /// Events per transaction when not strict.
    ///
    /// Random ids (UUIDv4, or ids derived for lines without one) put each new entry of the id index on a
    /// random page, and every commit writes each page it changed into the WAL: larger transactions write
    /// those pages fewer times (docs/storage-layout.md).
    public var batchSize: Int
    /// The page cache of the connection while it ingests, in bytes (SQLite's default is 2 MiB): 24 MiB holds
    /// the recent level of the id index that each commit inserts into in key order, and keeps the peak memory
    /// of a 10M-event ingest (the id filter included) under 96 MB (docs/storage-layout.md). The cache grows
    /// only as pages are used, and goes back to its size before when ingest ends.
    public var pageCacheBytes: Int
    /// When not strict, a transaction is also committed once it is this old, whatever its size: a killed or
    /// failed ingest loses at most this much work (it is re-run without duplicates), on a slow machine too.
    public var commitInterval: Duration
    /// The clock that ``commitInterval`` is read on.
    public var clock: any EventClock
    /// How lines are read into events.
    public var codec: NDJSONCodec

    /// Creates options: not strict, 100,000 events or 2 seconds per transaction, a 24 MiB page cache,
    /// standard limits.
    public init(
        strict: Bool = false, batchSize: Int = 100_000, commitInterval: Duration = .seconds(2),
        pageCacheBytes: Int = 24 << 20, clock: any EventClock = SystemEventClock(),
        codec: NDJSONCodec = NDJSONCodec()
    ) {
        self.strict = strict
        self.batchSize = max(1, batchSize)
        self.commitInterval = commitInterval
        self.pageCacheBytes = max(0, pageCacheBytes)
        self.clock = clock
        self.codec = codec
    }

    /// ``commitInterval`` in milliseconds.
    var commitIntervalMilliseconds: Int64 {
        commitInterval.wholeMilliseconds
    }
}

/// One NDJSON input: a file path, or `-` for standard input.
public struct IngestInput: Sendable, Hashable {
    /// The path as the user gave it; `-` is standard input.
    public var path: String

    /// Creates an input.
    public init(path: String) { self.path = path }

    /// The name used in messages: the path, or `stdin`.
    public var label: String { path == "-" ? "stdin" : path }
}

/// What an ingest did.
public struct IngestSummary: Sendable, Hashable {
    /// Non-blank lines read.
    public var lines = 0
    /// Events stored for the first time.
    public var stored = 0
    /// Valid events whose id was already stored (nothing changed for them).
    public var duplicates = 0
    /// Invalid lines (reported one by one to the caller).
    public var invalid = 0
    /// Bytes read.
    public var bytes = 0
    /// Events rejected over a limit (also among `invalid`) and events stored with a value cut to the length
    /// limit (``DropReason/valueTruncated``), by reason; each is added to the completeness table.
    public var limited: [DropReason: Int] = [:]
    /// Whether the events were committed (false after a strict ingest with an invalid line).
    public var committed = true
    /// Fields whose names are near misses of catalogue names (``FieldName/nearMiss(of:)``): each stored among its
    /// event's extras, as read.
    public var nearMissFields = 0
    /// The first few of ``nearMissFields`` (at most 5), in input order.
    public var firstNearMissFields: [FieldNameWarning] = []
    /// What the backend could not finish after the ingest's last commit, or `nil`: on PostgreSQL, the summaries of
    /// the time index's new ranges (``IngestRowWriter/finishIngest()``), and why. Every event counted in ``stored``
    /// is stored either way; autovacuum's next `VACUUM` of the partitions (or one by hand) finishes the rest.
    public var unfinished: String?
}

extension EventStore {
    /// Imports NDJSON events from `inputs`, redacted, each id once.
    ///
    /// Valid lines are committed in batches while invalid ones are reported to `onInvalidLine` as
    /// `file:line: reason`; with ``IngestOptions/strict`` one invalid line commits nothing.
    /// - Parameters:
    ///   - progress: called about every 65,536 lines with the summary so far.
    /// - Throws: ``IngestError`` for a missing or unreadable input, ``StoreError`` for the database.
    public func ingest(
        _ inputs: [IngestInput], options: IngestOptions = IngestOptions(),
        onInvalidLine: (IngestError) -> Void, progress: ((IngestSummary) -> Void)? = nil
    ) throws -> IngestSummary {
        // Fail before reading anything when an input is missing.
        for input in inputs where input.path != "-" {
            try EventStore.checkReadable(input)
        }
        return try withConnection { store in
            let cacheBefore = try store.connection.scalarInt("PRAGMA cache_size")
            try store.connection.execute("PRAGMA cache_size = -\(max(1, options.pageCacheBytes >> 10))")
            defer { try? store.connection.execute("PRAGMA cache_size = \(cacheBefore)") }
            // Small hand-over batches keep memory low; commits still come every `batchSize` events.
            let pipeline = IngestPipeline(
                inputs: inputs, codec: options.codec, redactor: store.writer.redactor, batchSize: 1_024)
            pipeline.start()
            var run = IngestRun(writer: store.writer, options: options)
            do {
                while let batch = pipeline.next() {
                    batch.errors.forEach(onInvalidLine)
                    try run.take(batch)
                    pipeline.recycle(batch.events)
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

    /// Checks that `input` can be read, before anything is: a regular file by opening it. A named pipe is only
    /// checked for read permission: opening it would wait for a writer, and closing it again would leave a writer that
    /// opened meanwhile without a reader (killed by `SIGPIPE` at its first write) while the ingest waited for the next.
    /// - Throws: ``IngestError`` (missing file or unreadable) naming the input.
    static func checkReadable(_ input: IngestInput) throws(IngestError) {
        var status = stat()
        if stat(input.path, &status) == 0, status.st_mode & S_IFMT == S_IFIFO {
            guard access(input.path, R_OK) == 0 else {
                throw IngestError(
                    .unreadable, file: input.label, reason: "cannot open: \(String(cString: strerror(errno)))")
            }
            return
        }
        closeDescriptor(try openInput(input))
    }

    /// Opens `input` for reading (standard input for `-`).
    /// - Throws: ``IngestError`` (missing file or unreadable) naming the input.
    static func openInput(_ input: IngestInput) throws(IngestError) -> Int32 {
        if input.path == "-" { return STDIN_FILENO }
        let descriptor = open(input.path, O_RDONLY)
        guard descriptor >= 0 else {
            if errno == ENOENT {
                throw IngestError(.missingFile, file: input.label, reason: "no such file: check the path")
            }
            throw IngestError(
                .unreadable, file: input.label, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }
}

/// Closes a file descriptor (the C library's `close`, which the store's own ``EventStore/close()`` hides inside
/// its extensions).
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
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

    /// Writes the events of `batch` (already redacted) and counts its lines, errors, losses and near misses.
    mutating func take(_ batch: IngestPipeline.Batch) throws(StoreError) {
        summary.lines += batch.lines
        summary.add(batch.nearMisses)
        summary.bytes = max(summary.bytes, batch.bytes)
        summary.invalid += batch.errors.count
        summary.limited.merge(batch.losses, uniquingKeysWith: +)
        if !batch.events.isEmpty {
            // Not atomic: any error rolls the whole transaction back.
            let stored = try writer.write(batch.events, mode: .redactedWithinTransaction)
            summary.stored += stored
            summary.duplicates += batch.events.count - stored
            uncommitted += batch.events.count
            let now = options.clock.nowMilliseconds()
            if !options.strict,
                uncommitted >= options.batchSize || now - transactionStart >= options.commitIntervalMilliseconds
            {
                try writer.commit()
                uncommitted = 0
                transactionStart = now
            }
        }
        if !batch.losses.isEmpty {
            // In the ingest's transaction: a strict ingest that commits nothing counts nothing.
            try writer.beginIfNeeded()
            try writer.recordLosses(batch.losses, nowMilliseconds: EventStore.nowMilliseconds())
        }
    }

    /// Commits what is left, or, for a strict ingest with an invalid line, rolls everything back.
    mutating func finish() throws(StoreError) {
        guard options.strict, summary.invalid > 0 else { return try writer.commit() }
        writer.rollback()
        summary.committed = false
        summary.stored = 0
        summary.duplicates = 0
        summary.limited = [:]
    }
}
