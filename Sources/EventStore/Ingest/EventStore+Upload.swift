import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// What the uploader (module EventUpload) needs of the store, for modules of this package only: a checked,
/// migrated connection of its own, the events in arrival order, and the completeness counts.
extension EventStore {
    /// Opens `path` as ``init(path:options:)`` does (checked, WAL, migrated) and returns the bare connection,
    /// which the caller must use from one thread at a time.
    /// - Throws: ``StoreError`` naming the file and what to do.
    package static func openConnection(path: String, options: Options = Options()) throws(StoreError)
        -> SQLiteConnection
    {
        try openChecked(path: path, options: options)
    }

    /// Calls `body` with up to `limit` stored events that arrived after `rowid`, oldest first, each with its rowid.
    package static func forEachEvent(
        on connection: SQLiteConnection, afterRowID rowid: Int64, limit: Int,
        _ body: (MeasurementEvent, Int64) throws(StoreError) -> Void
    ) throws(StoreError) {
        let statement = try connection.prepare(EmbeddedSQL.statement("select_events_after"))
        statement.bind(1, rowid)
        statement.bind(2, Int64(limit))
        defer { statement.reset() }
        let rowidColumn = Int32(EventColumns.fields.count + 4)
        while try statement.step() {
            try body(try EventColumns.readEvent(statement), statement.int64(rowidColumn))
        }
    }

    /// Adds `losses` to the completeness table through `connection`, inside its open transaction when there is one.
    package static func recordLosses(
        _ losses: [DropReason: Int], on connection: SQLiteConnection, nowMilliseconds: Int64
    ) throws(StoreError) {
        let statement = try connection.prepare(EmbeddedSQL.statement("upsert_completeness"))
        for (reason, count) in losses.sorted(by: { $0.key < $1.key }) where count > 0 {
            statement.bind(1, reason.completenessKind)
            statement.bind(2, reason.rawValue)
            statement.bind(3, Int64(count))
            statement.bind(4, nowMilliseconds)
            try statement.run()
        }
    }

    /// Now, in milliseconds since the Unix epoch.
    package static var currentMilliseconds: Int64 { nowMilliseconds() }
}

extension SQLiteConnection {
    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT`, rolling back when it throws.
    package func immediateTransaction<Result>(
        doing what: String, _ body: () throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try execute("BEGIN IMMEDIATE", doing: what)
        do throws(StoreError) {
            let result = try body()
            try execute("COMMIT", doing: what)
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
