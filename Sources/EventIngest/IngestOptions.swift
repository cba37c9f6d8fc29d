import MeasurementEvents

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How ``SQLiteEventStore/ingest(_:options:onInvalidLine:)`` imports NDJSON.
public struct IngestOptions: Sendable {
    /// Commit all or nothing: any invalid line rolls everything back.
    public var strict: Bool
    /// Events per transaction when not strict.
    ///
    /// Random ids (UUIDv4, or ids derived for lines without one) put each new entry of the id index on a
    /// random page, and every commit writes each page it changed into the WAL: larger transactions write
    /// those pages fewer times (docs/design/storage-layout.md).
    public var batchSize: Int
    /// The page cache of the connection while it ingests, in bytes (SQLite's default is 2 MiB): 10 MiB, with the
    /// commits' inserts into the id index sorted by key, costs no time against 16 MiB and keeps the peak memory of
    /// a 10M-event ingest (the id filter included) under 90 MB (docs/design/storage-layout.md). The cache grows only
    /// as pages are used, and goes back to its size before when ingest ends.
    public var pageCacheBytes: Int
    /// When not strict, a transaction is also committed once it is this old, whatever its size: a killed or
    /// failed ingest loses at most this much work (it is re-run without duplicates), on a slow machine too.
    public var commitInterval: Duration
    /// The clock that ``commitInterval`` is read on.
    public var clock: any EventClock
    /// How lines are read into events.
    public var codec: NDJSONCodec

    /// Creates options: not strict, 100,000 events or 2 seconds per transaction, a 10 MiB page cache,
    /// standard limits.
    public init(
        strict: Bool = false, batchSize: Int = 100_000, commitInterval: Duration = .seconds(2),
        pageCacheBytes: Int = 10 << 20, clock: any EventClock = SystemEventClock(),
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
    package var commitIntervalMilliseconds: Int64 {
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
    /// An empty summary: nothing read yet.
    package init() {}

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

extension IngestInput {

    /// Checks that the input can be read, before anything is: a regular file by opening it. A named pipe is only
    /// checked for read permission: opening it would wait for a writer, and closing it again would leave a writer that
    /// opened meanwhile without a reader (killed by `SIGPIPE` at its first write) while the ingest waited for the next.
    /// - Throws: ``IngestError`` (missing file or unreadable) naming the input.
    /// The input's size in bytes when it is a regular file; `nil` for standard input, a pipe or a device.
    package var regularFileBytes: Int? {
        guard path != "-" else { return nil }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    package func checkReadable() throws(IngestError) {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFIFO {
            guard access(path, R_OK) == 0 else {
                throw IngestError(
                    .unreadable, file: label, reason: "cannot open: \(String(cString: strerror(errno)))")
            }
            return
        }
        closeDescriptor(try openInput())
    }

    /// Opens the input for reading (standard input for `-`).
    /// - Throws: ``IngestError`` (missing file or unreadable) naming the input.
    package func openInput() throws(IngestError) -> Int32 {
        if path == "-" { return STDIN_FILENO }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            if errno == ENOENT {
                throw IngestError(.missingFile, file: label, reason: "no such file: check the path")
            }
            throw IngestError(
                .unreadable, file: label, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }
}

/// Closes a file descriptor (the C library's `close`).
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}
