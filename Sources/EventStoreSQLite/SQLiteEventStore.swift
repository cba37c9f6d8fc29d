import CSQLite
import EventStoreInterface
import Foundation
import MeasurementEvents
import SQLiteSupport

/// The SQLite event store: one database file that `sqlite3` can read while alstats writes.
///
/// Opening checks the file before anything is written: a file that is not SQLite, or is damaged, or
/// has a schema newer than this binary, is refused and left untouched. Then it switches to WAL,
/// `synchronous=NORMAL`, a busy timeout, and applies the pending migrations embedded in the binary.
///
/// ```swift
/// let store = try SQLiteEventStore(path: "alstats.sqlite")
/// try store.write([MeasurementEvent(name: EventName.navOut, fields: ["success": "1"], timestamp: 1_763_683_200_000)])
/// try store.export { chunk in FileHandle.standardOutput.write(Data(chunk)) }   // NDJSON lines
/// ```
public final class SQLiteEventStore: @unchecked Sendable {
    // @unchecked Sendable: the connection and writer are only touched inside `lock` (``withConnection``).

    /// How a store is opened.
    public struct Options: Sendable {
        /// Create the file when it does not exist (writing commands); `false` refuses a missing file.
        public var create: Bool
        /// The redactor applied to every event before it is written.
        public var redactor: Redactor
        /// Run `PRAGMA quick_check` at open when the file is at most this many bytes (always before migrating).
        public var integrityCheckLimit: Int
        /// How long a statement waits for another writer's lock.
        public var busyTimeout: Duration
        /// When set, the database may not grow beyond this many pages (`PRAGMA max_page_count`): a write
        /// that needs more fails as on a full disk, and the transaction is rolled back. For quotas and tests.
        public var maximumPageCount: Int?
        /// Pack the database's long fields once it holds 4,096 events (Migrations/0016_pack_event_fields.sql), the
        /// default: the file takes about half the bytes, and its views then read the long fields through alstats's
        /// SQL functions, which alstats's connections have and other programs get by loading the AlstatsSQLite
        /// extension (docs/sql.md). `false` keeps a new database plain; a database packed already is packed into
        /// either way. Builds without Zstandard (Apple platforms) never pack.
        public var packFields = true
        /// When the WAL is copied into the database file (``WALCheckpointer``); tests lower them.
        package var walCheckpoints = WALCheckpointer.Thresholds.standard
        /// The clock of what the store stamps with the time it writes it (completeness counts, links); tests set it.
        public var clock: any EventClock = SystemEventClock()

        /// Creates options; the defaults create the file, redact the default secret keys, check files
        /// up to 256 MiB, wait 5 s for locks, leave the size unlimited, and pack past 4,096 events.
        public init(
            create: Bool = true, redactor: Redactor = Redactor(), integrityCheckLimit: Int = 256 << 20,
            busyTimeout: Duration = .seconds(5), maximumPageCount: Int? = nil, packFields: Bool = true
        ) {
            self.packFields = packFields
            self.create = create
            self.redactor = redactor
            self.integrityCheckLimit = integrityCheckLimit
            self.busyTimeout = busyTimeout
            self.maximumPageCount = maximumPageCount
        }
    }

    /// The database file.
    public let path: String

    /// The connection and writer, used under `lock` only (the connection is opened without SQLite's mutex).
    private let store: StoreConnection
    private let lock = StateLock(())
    /// The writer's redactor, for ``encode(_:)`` outside the lock.
    let redactor: Redactor
    /// The clock of the times the store stamps (``Options/clock``).
    let clock: any EventClock
    /// How long a statement waits for another writer's lock (``Options/busyTimeout``); a prune's connection too.
    let busyTimeout: Duration
    /// The writer's packing dictionary, for ``encode(_:)`` outside the lock.
    let packers = EventPacker.Slot()

    /// Opens (and by default creates) the database at `path` and applies pending migrations.
    /// - Throws: ``StoreError`` naming the file and what to do.
    public init(path: String, options: Options = Options()) throws(StoreError) {
        self.path = path
        let connection: SQLiteConnection
        let writer: EventWriter
        do throws(SQLiteError) {
            connection = try SQLiteEventStore.openChecked(path: path, options: options)
            writer = try EventWriter(
                connection: connection, redactor: options.redactor, clock: options.clock, packers: packers)
        } catch {
            throw StoreError(error)
        }
        writer.packsFields = options.packFields
        store = StoreConnection(connection: connection, writer: writer)
        redactor = options.redactor
        clock = options.clock
        busyTimeout = options.busyTimeout
    }

    /// The schema version of the database (the latest migration applied).
    public var schemaVersion: Int {
        get throws(StoreError) {
            try withStore { store throws(SQLiteError) in try SchemaMigrator().currentVersion(of: store.connection) }
        }
    }

    /// The schema version this binary migrates databases to.
    public static var latestSchemaVersion: Int { SchemaMigrator().latestVersion }

    /// Writes `events` (redacted) in one transaction; an id already stored is skipped.
    /// - Returns: how many events were new.
    @discardableResult
    public func write(_ events: [MeasurementEvent]) throws(StoreError) -> Int {
        try withStore { store throws(SQLiteError) in
            let inserted = try store.writer.write(events)
            try store.writer.commit()
            return inserted
        }
    }

    /// Whether this build can pack (it has Zstandard: Linux builds do, Apple platforms' do not).
    public static var canPack: Bool { EventPacker.isAvailable }

    /// How many events a database needs before it can be packed.
    public static var packingThreshold: Int { EventPacker.trainingThreshold }

    /// Packs the database now (Migrations/0016_pack_event_fields.sql): trains its dictionary on its latest
    /// 4,096 events, packs every stored row and redefines its views to read packed rows; from then on every
    /// writer packs new rows. `alstats export` still reproduces every event exactly.
    /// - Returns: whether the database is packed (`false` when it holds fewer than 4,096 events, or when this
    ///   build has no Zstandard: nothing changed then).
    @discardableResult
    public func pack() throws(StoreError) -> Bool {
        try withStore { store throws(SQLiteError) in
            try store.writer.beginIfNeeded()
            do throws(SQLiteError) {
                let packed = try store.writer.packStoredEvents()
                try store.writer.commit()
                return packed
            } catch {
                store.writer.rollback()
                throw error
            }
        }
    }

    /// Rebuilds the file without its free pages (`VACUUM`), returning to the file system the space that deleted or
    /// rewritten rows left (after ``pack()``). Takes as long as copying the database, and needs as much free space.
    public func reclaimSpace() throws(StoreError) {
        try withStore { store throws(SQLiteError) in
            try store.connection.execute("VACUUM", doing: "rebuilding the file without its free pages")
            // The rebuilt pages are in the WAL until a checkpoint copies them back into the file.
            _ = try store.connection.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Adds loss counts to the completeness table, in a transaction of their own.
    public func recordLosses(_ losses: [DropReason: Int]) throws(StoreError) {
        try withStore { store throws(SQLiteError) in
            try store.writer.recordLosses(losses)
        }
    }

    /// The completeness counts, keyed by kind (`dropped`, `rejected`) and reason; on a device's database, those
    /// its uploader counted too (``completeness(on:)``).
    public func completeness() throws(StoreError) -> [String: [String: Int]] {
        try withStore { store throws(SQLiteError) in try SQLiteEventStore.completeness(on: store.connection) }
    }

    /// The number of stored events.
    public func count() throws(StoreError) -> Int {
        try withStore { store throws(SQLiteError) in
            Int(try store.connection.scalarInt("SELECT count(*) FROM events"))
        }
    }

    /// Recomputes every rollup (the report's and the hosted links funnel's) from the raw events, in one
    /// transaction.
    public func rebuildRollups() throws(StoreError) {
        try withStore { store throws(SQLiteError) in
            try store.connection.execute("BEGIN IMMEDIATE", doing: "rebuilding rollups")
            do throws(SQLiteError) {
                try store.connection.execute(RollupKey.rebuildSQL, doing: "rebuilding rollups")
                try store.connection.execute(
                    EmbeddedSQL.statement("rebuild_link_rollups"), doing: "rebuilding rollups")
                try store.connection.execute("COMMIT", doing: "rebuilding rollups")
            } catch {
                try? store.connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Calls `body` with each stored event with `since <= timestamp < until`, in time order.
    public func forEachEvent(
        since: Int64 = .min, until: Int64 = .max, _ body: (MeasurementEvent) throws -> Void
    ) throws {
        try withStoreRethrowing { store in
            let statement = try store.connection.prepare(EventColumns.selectSQL)
            statement.bind(1, since)
            statement.bind(2, until)
            defer { statement.reset() }
            while try statement.step() {
                try body(try EventColumns.readEvent(statement))
            }
        }
    }

    /// Runs `body` with the connection and writer, under the lock, and gives its SQLite failure as the store's
    /// (``StoreError/init(_:)``): what the store's public methods throw.
    package func withStore<Result>(
        _ body: (StoreConnection) throws(SQLiteError) -> Result
    ) throws(StoreError) -> Result {
        do throws(SQLiteError) {
            return try withConnection(body)
        } catch {
            throw StoreError(error)
        }
    }

    /// ``withStore(_:)`` for a body that throws errors of its own too
    /// (an ingest's, a query's, the caller's): those pass as they are, SQLite's failures are given as the store's.
    package func withStoreRethrowing<Result>(_ body: (StoreConnection) throws -> Result) throws -> Result {
        do {
            return try withConnection(body)
        } catch let error as SQLiteError {
            throw StoreError(error)
        }
    }

    /// Runs `body` with the connection and writer, under the lock.
    package func withConnection<Result, Failure: Error>(
        _ body: (StoreConnection) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try lock.withLock { _ throws(Failure) in try body(store) }
    }
}

/// The connection of a store and its writer.
package struct StoreConnection {
    package let connection: SQLiteConnection
    let writer: EventWriter
}
