import EventStore
import Foundation
import MeasurementEvents
import Synchronization

/// The sink's outbox: the `upload_outbox` table (migration 0010) of an alstats SQLite database, holding the
/// NDJSON lines of committed events until a receipt answers them.
///
/// Two connections: the bus's delivery thread appends and commits through `writer`, the uploader reads
/// batches and deletes answered ones through `reader`; SQLite's WAL lets the reader read while the writer
/// writes, and its busy timeout orders their short write transactions. A second process opening the same
/// file (the app, restarted) sees exactly the rows no receipt answered yet.
final class UploadOutbox: UploadSource, @unchecked Sendable {
    // @unchecked Sendable: `writer` is only used under `writerLock`, `reader` only under `readerLock`;
    // `inFlight` is a Mutex.

    let path: String
    let maximumBytes: Int
    private let redactor: Redactor
    private let writerLock = NSLock()
    private let readerLock = NSLock()
    private let writer: SQLiteConnection
    private let reader: SQLiteConnection
    private let insert: SQLiteStatement
    /// The last seq of the batch being sent (0 for none): a full outbox never drops it, so that a receipt
    /// never acknowledges an event already counted as dropped.
    private let inFlight = Mutex<Int64>(0)
    private var closed = false

    /// Opens (creating and migrating when needed) the database at `path`.
    init(path: String, maximumBytes: Int, options: EventStore.Options) throws(StoreError) {
        self.path = path
        self.maximumBytes = max(1, maximumBytes)
        redactor = options.redactor
        writer = try EventStore.openConnection(path: path, options: options)
        var readerOptions = options
        readerOptions.integrityCheckLimit = 0
        reader = try EventStore.openConnection(path: path, options: readerOptions)
        insert = try writer.prepare("INSERT INTO upload_outbox (line, bytes) VALUES (?1, ?2)")
    }

    // MARK: The bus's side

    /// Appends the redacted events' lines inside the open transaction (opening one when needed).
    func append(_ events: [MeasurementEvent]) throws(StoreError) {
        writerLock.lock()
        defer { writerLock.unlock() }
        try openWriter()
        if !writer.inTransaction { try writer.execute("BEGIN IMMEDIATE", doing: "appending to the outbox") }
        for event in events {
            let line = NDJSONCodec.line(for: redactor.redact(event))
            insert.bind(1, line)
            insert.bind(2, Int64(line.utf8.count + 1))
            try insert.run()
        }
    }

    /// Drops the oldest events beyond the bound (counted as `outbox_full`), records `losses`, and commits.
    /// - Returns: how many events the bound dropped.
    func commit(losses: [DropReason: Int] = [:]) throws(StoreError) -> Int {
        writerLock.lock()
        defer { writerLock.unlock() }
        try openWriter()
        if !writer.inTransaction {
            guard !losses.isEmpty else { return 0 }
            try writer.execute("BEGIN IMMEDIATE", doing: "recording losses in the outbox")
        }
        do throws(StoreError) {
            let evicted = try evictOldest()
            var all = losses
            if evicted > 0 { all[HTTPEventSink.outboxFull, default: 0] += evicted }
            try EventStore.recordLosses(all, on: writer, nowMilliseconds: EventStore.currentMilliseconds)
            try writer.execute("COMMIT", doing: "committing the outbox")
            return evicted
        } catch {
            try? writer.execute("ROLLBACK")
            throw error
        }
    }

    /// Deletes the oldest rows, except the batch in flight, until the outbox holds at most `maximumBytes`.
    private func evictOldest() throws(StoreError) -> Int {
        let total = try writer.scalarInt("SELECT bytes FROM upload_outbox_size")
        guard total > Int64(maximumBytes) else { return 0 }
        let protected = inFlight.withLock { $0 }
        let oldest = try writer.prepare("SELECT seq, bytes FROM upload_outbox WHERE seq > ?1 ORDER BY seq")
        oldest.bind(1, protected)
        var freed: Int64 = 0
        var last: Int64 = protected
        while freed < total - Int64(maximumBytes), try oldest.step() {
            last = oldest.int64(0)
            freed += oldest.int64(1)
        }
        oldest.reset()
        guard last > protected else { return 0 }
        let delete = try writer.prepare("DELETE FROM upload_outbox WHERE seq > ?1 AND seq <= ?2")
        delete.bind(1, protected)
        delete.bind(2, last)
        try delete.run()
        return writer.changes
    }

    /// Commits what is pending; later calls fail.
    func close() throws(StoreError) {
        _ = try commit()
        writerLock.lock()
        closed = true
        writerLock.unlock()
    }

    private func openWriter() throws(StoreError) {
        if closed {
            throw StoreError(.io, path: path, "the outbox \(path) is closed: attach a new HTTPEventSink")
        }
    }

    // MARK: The uploader's side

    func nextBatch(maximumEvents: Int, maximumBytes: Int) throws(UploadError) -> UploadBatch? {
        readerLock.lock()
        defer { readerLock.unlock() }
        do throws(StoreError) {
            let select = try reader.prepare("SELECT seq, line FROM upload_outbox ORDER BY seq LIMIT ?1")
            select.bind(1, Int64(maximumEvents))
            defer { select.reset() }
            var batch = UploadBatch()
            var bytes = 0
            while try select.step() {
                let line = select.text(1) ?? ""
                guard batch.append(line, key: select.int64(0), bytes: &bytes, maximumBytes: maximumBytes) else { break }
            }
            return batch.count == 0 ? nil : batch
        } catch {
            throw UploadError(error)
        }
    }

    func finish(_ batch: UploadBatch, rejected: [DropReason: Int]) throws(UploadError) {
        guard let first = batch.keys.first, let last = batch.keys.last else { return }
        readerLock.lock()
        defer { readerLock.unlock() }
        do throws(StoreError) {
            try reader.immediateTransaction(doing: "removing acknowledged events from the outbox") {
                () throws(StoreError) in
                let delete = try reader.prepare("DELETE FROM upload_outbox WHERE seq BETWEEN ?1 AND ?2")
                delete.bind(1, first)
                delete.bind(2, last)
                try delete.run()
                try EventStore.recordLosses(rejected, on: reader, nowMilliseconds: EventStore.currentMilliseconds)
            }
        } catch {
            throw UploadError(error)
        }
    }

    func pendingCount() throws(UploadError) -> Int {
        readerLock.lock()
        defer { readerLock.unlock() }
        do throws(StoreError) {
            return Int(try reader.scalarInt("SELECT events FROM upload_outbox_size"))
        } catch {
            throw UploadError(error)
        }
    }

    func markInFlight(_ batch: UploadBatch?) {
        inFlight.withLock { $0 = batch?.keys.last ?? 0 }
    }
}
