import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One SQLite connection, used by one thread at a time (its owner serialises access).
///
/// Opened with `SQLITE_OPEN_NOMUTEX`: SQLite takes no lock of its own, which is correct only while the
/// owner never lets two threads use the connection at once. ``SQLiteEventSink`` and ``SQLiteEventStore``
/// guarantee that with a mutex.
package final class SQLiteConnection {
    package let handle: OpaquePointer
    package let path: String
    /// Checkpoints this connection's WAL on a thread of its own, once ``checkpointInBackground(_:)`` is called.
    package private(set) var checkpointer: WALCheckpointer?
    /// The statements of ``cachedStatement(_:)``, by their SQL.
    private var cachedStatements: [String: SQLiteStatement] = [:]

    /// Opens `path` for reading and writing, creating it when `create` is true.
    package init(path: String, create: Bool) throws(SQLiteError) {
        var pointer: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if create { flags |= SQLITE_OPEN_CREATE }
        let status = sqlite3_open_v2(path, &pointer, flags, nil)
        guard status == SQLITE_OK, let pointer else {
            let detail = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let pointer { sqlite3_close_v2(pointer) }
            throw SQLiteConnection.openError(path: path, status: status, detail: detail)
        }
        handle = pointer
        self.path = path
    }

    deinit {
        checkpointer?.stop(uninstallingFrom: handle)
        cachedStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Moves the WAL's checkpoints off this (writing) connection's thread (``WALCheckpointer``).
    package func checkpointInBackground(_ thresholds: WALCheckpointer.Thresholds) {
        let checkpointer = WALCheckpointer(path: path, thresholds: thresholds)
        checkpointer.install(on: handle)
        self.checkpointer = checkpointer
    }

    private static func openError(path: String, status: Int32, detail: String) -> SQLiteError {
        if status & 0xFF == SQLITE_CANTOPEN {
            return SQLiteError(
                .readOnly, path: path,
                "cannot open or create the database \(path) (\(detail)): check that its folder exists and is "
                    + "writable", remedy: .anotherPath)
        }
        if status & 0xFF == SQLITE_NOTADB {
            return SQLiteError(
                .notADatabase, path: path,
                "\(path) is not an SQLite database; it was left untouched", remedy: .anotherPath)
        }
        return SQLiteError(.io, path: path, "cannot open the database \(path): \(detail)")
    }

    /// The latest error message of this connection.
    package var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// A ``SQLiteError`` for a failed call with `status`, naming the file and what to do.
    package func error(_ status: Int32, doing what: String) -> SQLiteError {
        let message = lastMessage
        switch status & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return SQLiteError(
                .corrupt, path: path,
                "the database \(path) is damaged (\(message)) while \(what): restore it from a copy or use a new file")
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN:
            return SQLiteError(
                .readOnly, path: path,
                "the database \(path) cannot be written (\(message)) while \(what): check the permissions of the "
                    + "file and its folder")
        case SQLITE_FULL:
            return SQLiteError(.io, path: path, "the disk holding \(path) is full while \(what): free some space")
        case SQLITE_IOERR where isFullDiskErrno(lastWriteErrno(status)):
            // A quota or a file-size limit fails the write() itself, which SQLite reports as an I/O error.
            return SQLiteError(
                .io, path: path,
                "the disk holding \(path) is full, or a size limit was reached, while \(what): free some space")
        case SQLITE_IOERR where sqlite3_extended_errcode(handle) == SQLITE_IOERR | (3 << 8):
            // SQLITE_IOERR_WRITE whose errno was lost (SQLite reads errno after later system calls): a write
            // failed, most often for want of space.
            return SQLiteError(
                .io, path: path,
                "a write to \(path) failed (the disk is full, or a size limit was reached, or it cannot be written) "
                    + "while \(what): free some space or check the disk")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return SQLiteError(
                .io, path: path,
                "the database \(path) stayed locked by another writer while \(what): stop the other writer or retry")
        default:
            return SQLiteError(.io, path: path, "SQLite failed on \(path) while \(what): \(message)")
        }
    }

    private func isFullDiskErrno(_ value: Int32) -> Bool {
        value == ENOSPC || value == EDQUOT || value == EFBIG
    }

    /// The `errno` of the failed write behind an I/O error `status`.
    ///
    /// `sqlite3_system_errno` is read when SQLite reports the error, after the rollback that followed it: a
    /// write that failed while the page cache spilled into the WAL in the middle of a statement has its
    /// `errno` overwritten by then. Each file of the connection (the database and its WAL) keeps the `errno`
    /// of its own last failed call, so a write error (`SQLITE_IOERR_WRITE`, `_FSYNC`, `_TRUNCATE`) asks them.
    private func lastWriteErrno(_ status: Int32) -> Int32 {
        let system = sqlite3_system_errno(handle)
        guard !isFullDiskErrno(system) else { return system }
        // SQLITE_IOERR_WRITE, _FSYNC, _TRUNCATE (C macros Swift does not import).
        let writeErrors: [Int32] = [3, 4, 6].map { SQLITE_IOERR | $0 << 8 }
        guard writeErrors.contains(status) else { return system }
        var fileErrno: Int32 = 0
        if sqlite3_file_control(handle, "main", SQLITE_FCNTL_LAST_ERRNO, &fileErrno) == SQLITE_OK,
            isFullDiskErrno(fileErrno)
        {
            return fileErrno
        }
        var journal: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_JOURNAL_POINTER, &journal) == SQLITE_OK,
            let journal, let methods = journal.pointee.pMethods, let control = methods.pointee.xFileControl
        else { return system }
        fileErrno = 0
        return control(journal, SQLITE_FCNTL_LAST_ERRNO, &fileErrno) == SQLITE_OK ? fileErrno : system
    }

    /// Runs SQL text that may hold several statements and returns no rows.
    package func execute(_ sql: String, doing what: String = "running SQL") throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, doing: what) }
    }

    /// Prepares one statement meant to be reused.
    package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var pointer: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard status == SQLITE_OK, let pointer else { throw error(status, doing: "preparing a statement") }
        return SQLiteStatement(handle: pointer, connection: self)
    }

    /// The statement of `sql`, prepared on this connection's first call and kept for the next ones: for a statement
    /// run again and again on one connection (the push's reads and cursor ran five per batch, and preparing them was
    /// 5% of its CPU). The caller resets it after use (`defer { statement.reset() }`) and never uses the same SQL
    /// again while it steps.
    package func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = cachedStatements[sql] { return statement }
        let statement = try prepare(sql)
        cachedStatements[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql`, as text (`nil` for no row or NULL).
    package func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// The first column of the first row of `sql`, as an integer (0 for no row).
    package func scalarInt(_ sql: String) throws(SQLiteError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    /// Rows changed by the latest INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows changed by every INSERT, UPDATE and DELETE on this connection since it was opened.
    package var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// The rowid of the latest row inserted on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open.
    package var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether SQLite opened the main database read-only (for example a file without write permission).
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }
}
