import CSQLite
import Foundation
import MeasurementEvents

/// Opening an alstats database file, as every module that keeps tables in one does (the SQLite store, the
/// uploader's outbox): the checks that leave a file that is not ours, damaged or newer untouched, WAL, and the
/// module's own migrations.
extension SQLiteConnection {
    /// The 16 bytes every SQLite 3 database file starts with.
    package static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// How ``openChecked(path:settings:migrator:beforeMigrating:)`` opens a file.
    package struct OpenSettings: Sendable {
        /// Create the file when it does not exist; `false` refuses a missing file.
        package var create: Bool
        /// How long a statement waits for another connection's lock.
        package var busyTimeout: Duration
        /// Run `PRAGMA quick_check` on a file of up to this many bytes (and on any file with migrations pending,
        /// whatever its size).
        package var integrityCheckLimit: Int
        /// When the WAL is checkpointed on a thread of its own (``WALCheckpointer``).
        package var walCheckpoints: WALCheckpointer.Thresholds
        /// Make a new file with `auto_vacuum = INCREMENTAL`, so that pages freed by deletes can be given back to the
        /// file system a few at a time (`PRAGMA incremental_vacuum(N)`, the SQLite store's prune) instead of by a
        /// `VACUUM` that rebuilds the whole file. Only a new file takes it: an existing one keeps its mode.
        package var incrementalVacuum = false

        /// Settings; by default a missing file is created, locks are waited for 5 s and files up to 256 MiB are
        /// checked.
        package init(
            create: Bool = true, busyTimeout: Duration = .seconds(5), integrityCheckLimit: Int = 256 << 20,
            walCheckpoints: WALCheckpointer.Thresholds = .standard
        ) {
            self.create = create
            self.busyTimeout = busyTimeout
            self.integrityCheckLimit = integrityCheckLimit
            self.walCheckpoints = walCheckpoints
        }
    }

    /// Opens `path` after checking it (a folder, a file that is not SQLite, a read-only, damaged or newer file is
    /// refused and left untouched), in WAL with `synchronous=NORMAL` and checkpoints in the background, then applies
    /// `migrator`'s pending migrations.
    /// - Parameter beforeMigrating: called on the configured connection just before the migrations (SQL functions
    ///   a migration uses).
    /// - Throws: ``SQLiteError`` naming the file and what to do.
    package static func openChecked(
        path: String, settings: OpenSettings, migrator: SchemaMigrator,
        beforeMigrating: (SQLiteConnection) throws(SQLiteError) -> Void = { _ throws(SQLiteError) in }
    ) throws(SQLiteError) -> SQLiteConnection {
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists, !settings.create {
            throw SQLiteError(
                .missing, path: path,
                "no database at \(path)", remedy: .existingOrNewDatabase)
        }
        let size = try fileSize(path: path, exists: exists)
        let connection = try SQLiteConnection(path: path, create: settings.create)
        if size > 0 { try connection.checkHeader() }
        // Before any read: reading a WAL database would create its -wal and -shm files beside it.
        if connection.isReadOnly {
            throw SQLiteError(
                .readOnly, path: path,
                "the database \(path) is read-only: make it writable or copy it somewhere writable")
        }
        sqlite3_busy_timeout(connection.handle, Int32(settings.busyTimeout.wholeMilliseconds))
        // Reading the header page fails here on a damaged first page.
        try migrator.checkNotNewer(connection)
        let pending = try migrator.hasPending(connection)
        if pending || size <= settings.integrityCheckLimit {
            try connection.checkIntegrity()
        }
        if size == 0 {
            // 16 KiB pages: fewer WAL frames and write calls per event than 4 KiB, same bytes per event.
            // Only possible before the first table and before WAL, hence here and not in a migration; so is the
            // vacuum mode.
            try connection.execute("PRAGMA page_size = 16384")
            if settings.incrementalVacuum { try connection.execute("PRAGMA auto_vacuum = INCREMENTAL") }
        }
        let mode = try connection.scalarText("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw SQLiteError(
                .io, path: path,
                "cannot switch \(path) to WAL mode (it stays '\(mode ?? "?")'): put the database on a local disk")
        }
        try connection.execute("PRAGMA synchronous = NORMAL")
        // Checkpoints on a thread of their own, the writer's own only as a backstop at 160 MiB of WAL.
        connection.checkpointInBackground(settings.walCheckpoints)
        try beforeMigrating(connection)
        try migrator.migrate(connection)
        return connection
    }

    /// Whether the database has a table named `table`.
    package func hasTable(_ table: String) throws(SQLiteError) -> Bool {
        let select = try prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1")
        select.bind(1, table)
        defer { select.reset() }
        return try select.step() && select.int64(0) > 0
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT`, rolling back when it throws.
    package func immediateTransaction<Result>(
        doing what: String, _ body: () throws(SQLiteError) -> Result
    ) throws(SQLiteError) -> Result {
        try execute("BEGIN IMMEDIATE", doing: what)
        do throws(SQLiteError) {
            let result = try body()
            try execute("COMMIT", doing: what)
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The file's size (0 when it does not exist); refuses a folder.
    private static func fileSize(path: String, exists: Bool) throws(SQLiteError) -> Int {
        guard exists else { return 0 }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw SQLiteError(.notADatabase, path: path, "\(path) is a folder, not a database: give a file path")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Refuses a non-empty file that does not start with the SQLite header, before SQLite reads or writes it.
    ///
    /// The header is read through the connection's own file descriptor: opening and closing another one would
    /// release every POSIX lock this process holds on the file, including the shared lock of another open
    /// connection (a second store in the same process), after which a process closing the database last
    /// deletes the WAL that connection still writes to, and its commits vanish.
    private func checkHeader() throws(SQLiteError) {
        var head = [UInt8](repeating: 0, count: 100)
        let status = csqlite_read_main_file(handle, &head, 100, 0)
        guard status == SQLITE_OK, Array(head.prefix(16)) == Self.sqliteHeader else {
            let shortRead = SQLITE_IOERR | (2 << 8)  // SQLITE_IOERR_SHORT_READ: a file under 100 bytes
            if status != SQLITE_OK, status != shortRead {
                throw SQLiteError(.readOnly, path: path, "cannot read \(path): check its permissions")
            }
            throw SQLiteError(
                .notADatabase, path: path,
                "\(path) is not an SQLite database; it was left untouched", remedy: .anotherPath)
        }
    }

    /// Runs `PRAGMA quick_check` and refuses a damaged database.
    private func checkIntegrity() throws(SQLiteError) {
        let result: String?
        do throws(SQLiteError) {
            result = try scalarText("PRAGMA quick_check(1)")
        } catch {
            throw SQLiteError(
                .corrupt, path: path,
                "the database \(path) is damaged (\(error.message)); it was left untouched: restore it "
                    + "from a copy or use a new file")
        }
        guard result == "ok" else {
            throw SQLiteError(
                .corrupt, path: path,
                "the database \(path) is damaged (\(result ?? "no answer")); it was left untouched: "
                    + "restore it from a copy or use a new file")
        }
    }
}
