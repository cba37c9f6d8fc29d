import CDynamicLinker
import CSQLite
import EventStoreSQLite

/// The entry point of the AlstatsSQLite loadable extension (`libAlstatsSQLite.so`), which SQLite calls when a program
/// loads it: `.load .build/release/libAlstatsSQLite` in the `sqlite3` shell, `load_extension` in Python. It
/// registers on the connection the SQL functions alstats's own connections have, so that the views of a packed
/// database read its long fields there too (docs/sql.md, "Packed fields in other tools").
///
/// The functions call the SQLite this library is linked with (the system's `libsqlite3`), so the program must use
/// that SQLite too, as the `sqlite3` shell and Python's `sqlite3` module of Debian, Ubuntu and macOS do. A program
/// with an SQLite of its own (linked in statically) is refused with a message, rather than handed functions that
/// would call another copy of SQLite on its connection.
@_cdecl("sqlite3_alstatssqlite_init")
public func alstatsSQLiteInit(
    _ database: OpaquePointer?, _ errorMessage: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ api: UnsafeRawPointer?
) -> Int32 {
    guard let database else { return SQLITE_ERROR }
    if let api, !sameLibrary(api) {
        return fail(
            "AlstatsSQLite calls the system's libsqlite3, and this program has an SQLite of its own: load it into "
                + "a program that uses the system's (the sqlite3 shell, Python's sqlite3), or use alstats query",
            errorMessage)
    }
    if let (name, status) = SQLiteEventStore.registerFunctions(onHandle: database) {
        return fail("AlstatsSQLite could not register \(name) (SQLite status \(status))", errorMessage)
    }
    return SQLITE_OK
}

/// Whether the routines SQLite handed over (`api`, a table inside the SQLite that loads the extension) belong to the
/// library this extension calls.
private func sameLibrary(_ api: UnsafeRawPointer) -> Bool {
    let ourFunction = unsafeBitCast(sqlite3_libversion_number as @convention(c) () -> Int32, to: UnsafeRawPointer.self)
    guard let theirs = cdynamiclinker_image_base(api), let ours = cdynamiclinker_image_base(ourFunction) else {
        return false
    }
    return theirs == ours
}

/// Hands `message` to SQLite (which frees it) and returns the error status.
private func fail(_ message: String, _ errorMessage: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    if let errorMessage {
        let bytes = Array(message.utf8CString)
        if let copy = sqlite3_malloc(Int32(bytes.count))?.assumingMemoryBound(to: CChar.self) {
            bytes.withUnsafeBufferPointer { copy.update(from: $0.baseAddress!, count: bytes.count) }
            errorMessage.pointee = copy
        }
    }
    return SQLITE_ERROR
}
