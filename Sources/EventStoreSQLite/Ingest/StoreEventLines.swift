import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// The stored events as `alstats push` sends them: their NDJSON lines in arrival (rowid) order, and how many are
/// left after a cursor, on a connection of their own. The push reads `events` only through this reader and its
/// statements (`Statements/select_events_for_push.sql`, `count_events_between.sql`).
///
/// The uploader (module EventUpload) knows no store: its `EventPusher` reads through its `PushLineSource` protocol,
/// which this reader meets in the modules that know both (the CLI's `alstats push`, the tests) with an empty
/// `extension StoreEventLines: PushLineSource {}`.
package final class StoreEventLines: Sendable {
    /// The database file.
    package let path: String
    /// The reader's connection, used by one thread at a time.
    private let connection: StateLock<SQLiteConnection>

    /// Opens the store at `path` (it must exist), checked and migrated as ``SQLiteEventStore/init(path:options:)`` does,
    /// without the integrity check of a file with no migration pending (`alstats push` opened it as a store first).
    /// - Throws: ``SQLiteError`` naming the file and what to do.
    package init(path: String) throws(SQLiteError) {
        self.path = path
        let options = SQLiteEventStore.Options(create: false, integrityCheckLimit: 0)
        let connection = try SQLiteEventStore.openChecked(path: path, options: options)
        // The push reads the whole table once, in rowid order: from a memory map of the file, not a `pread`
        // copy of each page (5% of a push's CPU).
        try connection.execute("PRAGMA mmap_size = \(Self.mapBytes)", doing: "mapping the database")
        self.connection = StateLock(connection)
    }

    /// The most bytes of the file the reader maps (SQLite reads the rest as before).
    static let mapBytes = 1 << 30

    /// Calls `body` with the NDJSON line (without newline) and the rowid of up to `limit` stored events that
    /// arrived after the rowid `key`, oldest first, until `body` returns `false`. Each line is the bytes
    /// `NDJSONCodec.line(for:)` gives for the event the store reads from the row, written without making the event
    /// (a dictionary of its fields, hashed, then sorted, was a third of a push's CPU).
    /// - Throws: ``SQLiteError`` when the database fails or a row's extra fields are not a JSON object.
    package func forEachLine(
        after key: Int64, limit: Int, _ body: (_ line: [UInt8], _ key: Int64) throws(SQLiteError) -> Bool
    ) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let select = try connection.cachedStatement(EventLineWriter.selectSQL)
            select.bind(1, key)
            select.bind(2, Int64(limit))
            defer { select.reset() }
            var writer = EventLineWriter(path: connection.path)
            while try select.step() {
                try writer.write(select)
                guard try body(writer.line, select.int64(EventLineWriter.rowidColumn)) else { return }
            }
        }
    }

    /// The number of stored events with `after < rowid <= upTo`.
    package func count(after key: Int64, upTo: Int64) throws(SQLiteError) -> Int {
        guard upTo > key else { return 0 }
        return try connection.withLock { connection throws(SQLiteError) in
            let select = try connection.cachedStatement(EmbeddedSQL.statement("count_events_between"))
            select.bind(1, key)
            select.bind(2, upTo)
            defer { select.reset() }
            return try select.step() ? Int(select.int64(0)) : 0
        }
    }
}
