import MeasurementEvents
import SQLiteSupport

/// The sink's outbox: the `upload_outbox` table (the uploader's own schema, `Migrations/upload/`) of a SQLite
/// database, holding the NDJSON lines of committed events until a receipt answers them. Its statements are the
/// `.sql` files of `Statements/` (``UploadSQL``).
///
/// Two connections: the bus's delivery thread appends and commits through `writer`, the uploader reads
/// batches and deletes answered ones through `reader`; SQLite's WAL lets the reader read while the writer
/// writes, and its busy timeout orders their short write transactions. A second process opening the same
/// file (the app, restarted) sees exactly the rows no receipt answered yet.
///
/// The device's losses travel too (UploadOutbox+DeviceLosses.swift): a batch begins with the loss records
/// waiting, under negative keys (`-id`); the outbox's rows follow under their seqs, ascending.
///
/// `upload_outbox_size` holds the rows' count and bytes, so that the bound is checked without a scan. Every
/// statement here that inserts or deletes rows updates it in the same transaction (`resize_outbox`; SQLiteEventStore's
/// migration 0015 dropped the per-row triggers that did it before, an UPDATE per line): a commit adds its lines,
/// a delete subtracts the rows it really removed (``deleteRows(after:through:on:)``).
final class UploadOutbox: UploadSource, Sendable {
    let path: String
    let maximumBytes: Int
    private let redactor: Redactor
    /// The time the device's losses are stamped with.
    private let clock: any UploadClock
    /// The bus's side: its connection, statements and pending lines, one thread at a time.
    private let writer: StateLock<Writer>
    /// The uploader's connection, one thread at a time.
    private let reader: StateLock<SQLiteConnection>
    /// The rows of `insert_outbox_lines.sql` (UploadSQLTests holds the file to it).
    static let rowsPerInsert = 64
    /// The last seq of the batches read for sending (the one in flight and the one prepared after it; 0 for
    /// none): a full outbox never drops them, so that a receipt never acknowledges an event already counted as
    /// dropped. Reading a batch and dropping the oldest events both hold it, the drop until its commit.
    private let protected = StateLock<Int64>(0)

    /// What the bus's delivery thread appends and commits through.
    private struct Writer {
        let connection: SQLiteConnection
        let insert: SQLiteStatement
        /// ``UploadOutbox/rowsPerInsert`` lines at once (`insert_outbox_lines`). While SQLiteEventStore's migration
        /// 0010's per-row triggers fired (its 0015 dropped them), each statement had a statement journal, a copy of
        /// every page it changed: one statement per line copied the table's last page and the size row, 32 KiB of
        /// 16 KiB pages, for each line of about 600 bytes (9.9 GB of writes for 200,000 lines, half the uploading
        /// device's time); one per 64 lines copied them once for all 64. It stays one statement per 64 lines.
        let insertRows: SQLiteStatement
        /// `resize_outbox`: a commit adds its lines and reads back the new byte total.
        let grow: SQLiteStatement
        /// The lines written since the last commit: inserted by the commit in one short transaction, so that the
        /// uploader's deletes never wait for the bus between two commits (the bus's commit policy bounds them).
        var lines: [String] = []
        var closed = false
    }

    /// Opens (creating and migrating when needed) the database at `path`.
    init(
        path: String, maximumBytes: Int, options: OutboxOptions = OutboxOptions(),
        clock: any UploadClock = SystemUploadClock()
    ) throws(SQLiteError) {
        self.path = path
        self.maximumBytes = max(1, maximumBytes)
        redactor = options.redactor
        self.clock = clock
        let connection = try UploadDatabase.open(path: path, options: options, create: true)
        writer = StateLock(
            Writer(
                connection: connection, insert: try connection.prepare(UploadSQL.statement("insert_outbox_line")),
                insertRows: try connection.prepare(UploadSQL.statement("insert_outbox_lines")),
                grow: try connection.prepare(UploadSQL.statement("resize_outbox"))))
        reader = StateLock(
            try UploadDatabase.open(path: path, options: options, create: true, checkingIntegrity: false))
    }

    // MARK: The bus's side

    /// Encodes the redacted events' lines for the next commit.
    func append(_ events: [MeasurementEvent]) throws(SQLiteError) {
        let encoded = events.map { NDJSONCodec.line(for: redactor.redact($0)) }
        try writer.withLock { writer throws(SQLiteError) in
            try openWriter(writer)
            writer.lines.append(contentsOf: encoded)
        }
    }

    /// Inserts the lines appended since the last commit, drops the oldest events beyond the bound (counted as
    /// `outbox_full`), records `losses`, and commits, all in one transaction; on failure none of it is kept
    /// (the bus counts the lines' events as `sink_error`).
    /// - Returns: how many events the bound dropped.
    func commit(losses: [DropReason: Int] = [:]) throws(SQLiteError) -> Int {
        try writer.withLock { writer throws(SQLiteError) in
            try openWriter(writer)
            guard !writer.lines.isEmpty || !losses.isEmpty else { return 0 }
            defer { writer.lines.removeAll(keepingCapacity: true) }
            return try commit(writer, losses: losses)
        }
    }

    /// ``commit(losses:)`` under the writer's lock.
    private func commit(_ writer: Writer, losses: [DropReason: Int]) throws(SQLiteError) -> Int {
        let (lines, insert, insertRows, grow) = (writer.lines, writer.insert, writer.insertRows, writer.grow)
        try writer.connection.execute("BEGIN IMMEDIATE", doing: "committing to the outbox")
        do throws(SQLiteError) {
            var start = 0
            var added: Int64 = 0
            while lines.count - start >= Self.rowsPerInsert {
                for (offset, line) in lines[start..<start + Self.rowsPerInsert].enumerated() {
                    let bytes = Int64(line.utf8.count + 1)
                    insertRows.bind(Int32(2 * offset + 1), line)
                    insertRows.bind(Int32(2 * offset + 2), bytes)
                    added += bytes
                }
                try insertRows.run()
                start += Self.rowsPerInsert
            }
            for line in lines[start...] {
                let bytes = Int64(line.utf8.count + 1)
                insert.bind(1, line)
                insert.bind(2, bytes)
                added += bytes
                try insert.run()
            }
            grow.bind(1, Int64(lines.count))
            grow.bind(2, added)
            let grown = try grow.step()  // RETURNING: the update is done by the first step
            let total = grown ? grow.int64(0) : 0
            grow.reset()
            guard grown else {
                throw SQLiteError(.corrupt, path: path, "the outbox \(path) has no upload_outbox_size row")
            }
            guard total > Int64(maximumBytes) else {
                try record(losses, evicted: 0, on: writer.connection)
                return 0
            }
            // Held until the commit: a batch read meanwhile either sees the rows gone or protects them first.
            return try protected.withLock { protected throws(SQLiteError) -> Int in
                let evicted = try evictOldest(total: total, protected: protected, on: writer.connection)
                try record(losses, evicted: evicted, on: writer.connection)
                return evicted
            }
        } catch {
            try? writer.connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Adds `losses` and `evicted` (as `outbox_full`) to the device's completeness and commits.
    private func record(_ losses: [DropReason: Int], evicted: Int, on writer: SQLiteConnection) throws(SQLiteError) {
        var all = losses
        if evicted > 0 { all[HTTPEventSink.outboxFull, default: 0] += evicted }
        try UploadDatabase.countInCompleteness(all, now: clock.nowMilliseconds, on: writer)
        try UploadOutbox.countForCollector(all, on: writer)
        try writer.execute("COMMIT", doing: "committing the outbox")
    }

    /// Deletes the oldest rows after `protected` until the outbox holds at most `maximumBytes`.
    /// - Returns: how many rows it deleted.
    private func evictOldest(total: Int64, protected: Int64, on writer: SQLiteConnection) throws(SQLiteError) -> Int {
        let oldest = try writer.prepare(UploadSQL.statement("select_outbox_oldest"))
        oldest.bind(1, protected)
        var freed: Int64 = 0
        var last: Int64 = protected
        while freed < total - Int64(maximumBytes), try oldest.step() {
            last = oldest.int64(0)
            freed += oldest.int64(1)
        }
        oldest.reset()
        guard last > protected else { return 0 }
        return try UploadOutbox.deleteRows(after: protected, through: last, on: writer)
    }

    /// Deletes the rows with seqs in `(after, through]` and subtracts them from `upload_outbox_size`, inside the
    /// connection's open transaction. Only the rows the DELETE really removed count (RETURNING gives their
    /// bytes), so a range that another process deleted first subtracts nothing.
    /// - Returns: how many rows it deleted.
    static func deleteRows(after first: Int64, through last: Int64, on connection: SQLiteConnection)
        throws(SQLiteError) -> Int
    {
        let delete = try connection.prepare(UploadSQL.statement("delete_outbox_lines"))
        delete.bind(1, first)
        delete.bind(2, last)
        var rows: Int64 = 0
        var bytes: Int64 = 0
        while try delete.step() {
            rows += 1
            bytes += delete.int64(0)
        }
        delete.reset()
        guard rows > 0 else { return 0 }
        let shrink = try connection.prepare(UploadSQL.statement("resize_outbox"))
        shrink.bind(1, -rows)
        shrink.bind(2, -bytes)
        try shrink.run()
        return Int(rows)
    }

    /// Commits what is pending; later calls fail.
    func close() throws(SQLiteError) {
        _ = try commit()
        writer.withLock { $0.closed = true }
    }

    private func openWriter(_ writer: Writer) throws(SQLiteError) {
        if writer.closed {
            throw SQLiteError(.io, path: path, "the outbox \(path) is closed: attach a new HTTPEventSink")
        }
    }

    // MARK: The uploader's side

    func nextBatch(after previous: UploadBatch?, maximumEvents: Int, maximumBytes: Int) throws(UploadError)
        -> UploadBatch?
    {
        do throws(SQLiteError) {
            return try reader.withLock { reader throws(SQLiteError) in
                try nextBatch(after: previous, maximumEvents: maximumEvents, maximumBytes: maximumBytes, on: reader)
            }
        } catch {
            throw UploadError(error)
        }
    }

    /// ``nextBatch(after:maximumEvents:maximumBytes:)`` under the reader's lock.
    private func nextBatch(
        after previous: UploadBatch?, maximumEvents: Int, maximumBytes: Int, on reader: SQLiteConnection
    ) throws(SQLiteError) -> UploadBatch? {
        try UploadOutbox.convertLossCounts(on: reader, nowMilliseconds: clock.nowMilliseconds)
        return try protected.withLock { protected throws(SQLiteError) -> UploadBatch? in
            var batch = UploadBatch()
            var bytes = 0
            try UploadOutbox.appendLossRecords(
                after: previous, to: &batch, bytes: &bytes, maximumEvents: maximumEvents,
                maximumBytes: maximumBytes, on: reader)
            let select = try reader.prepare(UploadSQL.statement("select_outbox_lines"))
            select.bind(1, previous?.keys.last { $0 > 0 } ?? 0)
            select.bind(2, Int64(maximumEvents - batch.count))
            defer { select.reset() }
            while try select.step() {
                let line = select.text(1) ?? ""
                guard batch.append(line, key: select.int64(0), bytes: &bytes, maximumBytes: maximumBytes)
                else { break }
            }
            if let last = batch.keys.last, last > 0 { protected = max(protected, last) }
            return batch.count == 0 ? nil : batch
        }
    }

    func finish(_ batch: UploadBatch, rejected: [DropReason: Int], unseen: Bool) throws(UploadError) {
        do throws(SQLiteError) {
            try reader.withLock { reader throws(SQLiteError) in
                try finish(batch, rejected: rejected, unseen: unseen, on: reader)
            }
        } catch {
            throw UploadError(error)
        }
    }

    /// ``finish(_:rejected:unseen:)`` under the reader's lock.
    private func finish(_ batch: UploadBatch, rejected: [DropReason: Int], unseen: Bool, on reader: SQLiteConnection)
        throws(SQLiteError)
    {
        try reader.immediateTransaction(doing: "removing acknowledged events from the outbox") {
            () throws(SQLiteError) in
            if let first = batch.keys.first(where: { $0 > 0 }), let last = batch.keys.last {
                _ = try UploadOutbox.deleteRows(after: first - 1, through: last, on: reader)
            }
            try UploadOutbox.deleteLossRecords(batch.keys, on: reader)
            // Not for a loss record the collector refused: its loss would be sent as another record, for ever.
            if unseen, batch.keys.contains(where: { $0 > 0 }) {
                try UploadOutbox.countForCollector(rejected, on: reader)
            }
            try UploadDatabase.countInCompleteness(rejected, now: clock.nowMilliseconds, on: reader)
        }
    }

    func pendingCount() throws(UploadError) -> Int {
        do throws(SQLiteError) {
            return try reader.withLock { reader throws(SQLiteError) in
                Int(try reader.scalarInt(UploadSQL.statement("select_outbox_size")))
            }
        } catch {
            throw UploadError(error)
        }
    }

    func endUploading() {
        protected.withLock { $0 = 0 }
    }
}
