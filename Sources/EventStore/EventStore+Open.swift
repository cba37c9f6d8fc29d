import CSQLite
import EventStoreInterface
import Foundation
import MeasurementEvents
import SQLiteSupport

extension EventStore {
    /// The 16 bytes every SQLite 3 database file starts with.
    static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// Opens `path` after checking it, configures the connection and migrates.
    static func openChecked(path: String, options: Options) throws(StoreError) -> SQLiteConnection {
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists, !options.create {
            throw StoreError(
                .missing, path: path,
                "no database at \(path)", remedy: .existingOrNewDatabase)
        }
        let size = try fileSize(path: path, exists: exists)
        let connection = try SQLiteConnection(path: path, create: options.create)
        if size > 0 { try checkHeader(connection) }
        // Before any read: reading a WAL database would create its -wal and -shm files beside it.
        if connection.isReadOnly {
            throw StoreError(
                .readOnly, path: path,
                "the database \(path) is read-only: make it writable or copy it somewhere writable")
        }
        sqlite3_busy_timeout(connection.handle, Int32(options.busyTimeout.wholeMilliseconds))
        let migrator = SchemaMigrator()
        // Reading the header page fails here on a damaged first page.
        try migrator.checkNotNewer(connection)
        let pending = try migrator.hasPending(connection)
        if pending || size <= options.integrityCheckLimit {
            try checkIntegrity(connection)
        }
        if size == 0 {
            // 16 KiB pages: fewer WAL frames and write calls per event than 4 KiB, same bytes per event.
            // Only possible before the first table and before WAL, hence here and not in a migration.
            try connection.execute("PRAGMA page_size = 16384")
        }
        let mode = try connection.scalarText("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw StoreError(
                .io, path: path,
                "cannot switch \(path) to WAL mode (it stays '\(mode ?? "?")'): put the database on a local disk")
        }
        try connection.execute("PRAGMA synchronous = NORMAL")
        // Checkpoints on a thread of their own, the writer's own only as a backstop at 160 MiB of WAL.
        connection.checkpointInBackground(options.walCheckpoints)
        // Before migrating: migration 0011 computes the id index's keys with it.
        try EventIDKey.register(on: connection)
        try migrator.migrate(connection)
        if let pages = options.maximumPageCount {
            _ = try connection.scalarInt("PRAGMA max_page_count = \(max(1, pages))")
        }
        return connection
    }

    /// The file's size (0 when it does not exist); refuses a folder.
    private static func fileSize(path: String, exists: Bool) throws(StoreError) -> Int {
        guard exists else { return 0 }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StoreError(.notADatabase, path: path, "\(path) is a folder, not a database: give a file path")
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
    private static func checkHeader(_ connection: SQLiteConnection) throws(StoreError) {
        var head = [UInt8](repeating: 0, count: 100)
        let status = csqlite_read_main_file(connection.handle, &head, 100, 0)
        guard status == SQLITE_OK, Array(head.prefix(16)) == sqliteHeader else {
            let shortRead = SQLITE_IOERR | (2 << 8)  // SQLITE_IOERR_SHORT_READ: a file under 100 bytes
            if status != SQLITE_OK, status != shortRead {
                throw StoreError(
                    .readOnly, path: connection.path, "cannot read \(connection.path): check its permissions")
            }
            throw StoreError(
                .notADatabase, path: connection.path,
                "\(connection.path) is not an SQLite database; it was left untouched", remedy: .anotherPath)
        }
    }

    /// Runs `PRAGMA quick_check` and refuses a damaged database.
    private static func checkIntegrity(_ connection: SQLiteConnection) throws(StoreError) {
        let result: String?
        do throws(StoreError) {
            result = try connection.scalarText("PRAGMA quick_check(1)")
        } catch {
            throw StoreError(
                .corrupt, path: connection.path,
                "the database \(connection.path) is damaged (\(error.message)); it was left untouched: restore it "
                    + "from a copy or use a new file")
        }
        guard result == "ok" else {
            throw StoreError(
                .corrupt, path: connection.path,
                "the database \(connection.path) is damaged (\(result ?? "no answer")); it was left untouched: "
                    + "restore it from a copy or use a new file")
        }
    }
}
