import CSQLite

/// A prepared statement: bind, step, read columns, reset. Owned by one ``SQLiteConnection``.
package final class SQLiteStatement {
    package let handle: OpaquePointer
    package unowned let connection: SQLiteConnection

    package init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding (indexes start at 1)

    package func bind(_ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) { text in
                csqlite_bind_text(handle, index, text.baseAddress, Int32(text.count))
            }
        }
    }

    package func bind(_ index: Int32, _ value: Int64?) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        sqlite3_bind_int64(handle, index, value)
    }

    package func bind(_ index: Int32, blob bytes: UnsafeRawBufferPointer) {
        csqlite_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count))
    }

    /// Sets every parameter to NULL.
    package func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Stepping

    /// Steps once: `true` when a row is ready, `false` when done.
    @discardableResult
    package func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(status, doing: "running a statement")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to its end and resets it for the next use.
    package func run() throws(SQLiteError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Resets for the next use (bindings stay).
    package func reset() {
        sqlite3_reset(handle)
    }

    // MARK: Columns (indexes start at 0)

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    package func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column's type: SQLITE_INTEGER, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL, ...
    package func type(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    /// The bytes of a blob column (empty for NULL).
    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
