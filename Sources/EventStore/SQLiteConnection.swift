import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite connection, used by one thread at a time (its owner serialises access).
///
/// Opened with `SQLITE_OPEN_NOMUTEX`: SQLite takes no lock of its own, which is correct only while the
/// owner never lets two threads use the connection at once. ``SQLiteEventSink`` and ``EventStore``
/// guarantee that with a mutex.
package final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String

    /// Opens `path` for reading and writing, creating it when `create` is true.
    init(path: String, create: Bool) throws(StoreError) {
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
        sqlite3_close_v2(handle)
    }

    private static func openError(path: String, status: Int32, detail: String) -> StoreError {
        if status & 0xFF == SQLITE_CANTOPEN {
            return StoreError(
                .readOnly, path: path,
                "cannot open or create the database \(path) (\(detail)): check that its folder exists and is "
                    + "writable", remedy: .anotherPath)
        }
        if status & 0xFF == SQLITE_NOTADB {
            return StoreError(
                .notADatabase, path: path,
                "\(path) is not an SQLite database; it was left untouched", remedy: .anotherPath)
        }
        return StoreError(.io, path: path, "cannot open the database \(path): \(detail)")
    }

    /// The latest error message of this connection.
    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// A ``StoreError`` for a failed call with `status`, naming the file and what to do.
    func error(_ status: Int32, doing what: String) -> StoreError {
        let message = lastMessage
        switch status & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return StoreError(
                .corrupt, path: path,
                "the database \(path) is damaged (\(message)) while \(what): restore it from a copy or use a new file")
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN:
            return StoreError(
                .readOnly, path: path,
                "the database \(path) cannot be written (\(message)) while \(what): check the permissions of the "
                    + "file and its folder")
        case SQLITE_FULL:
            return StoreError(.io, path: path, "the disk holding \(path) is full while \(what): free some space")
        case SQLITE_IOERR where [ENOSPC, EDQUOT, EFBIG].contains(sqlite3_system_errno(handle)):
            // A quota or a file-size limit fails the write() itself, which SQLite reports as an I/O error.
            return StoreError(
                .io, path: path,
                "the disk holding \(path) is full, or a size limit was reached, while \(what): free some space")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError(
                .io, path: path,
                "the database \(path) stayed locked by another writer while \(what): stop the other writer or retry")
        default:
            return StoreError(.io, path: path, "SQLite failed on \(path) while \(what): \(message)")
        }
    }

    /// Runs SQL text that may hold several statements and returns no rows.
    package func execute(_ sql: String, doing what: String = "running SQL") throws(StoreError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, doing: what) }
    }

    /// Prepares one statement meant to be reused.
    package func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var pointer: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard status == SQLITE_OK, let pointer else { throw error(status, doing: "preparing a statement") }
        return SQLiteStatement(handle: pointer, connection: self)
    }

    /// The first column of the first row of `sql`, as text (`nil` for no row or NULL).
    package func scalarText(_ sql: String) throws(StoreError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// The first column of the first row of `sql`, as an integer (0 for no row).
    package func scalarInt(_ sql: String) throws(StoreError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { return 0 }
        return statement.int64(0)
    }

    /// Rows changed by the latest INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether a transaction is open.
    package var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether SQLite opened the main database read-only (for example a file without write permission).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }
}
