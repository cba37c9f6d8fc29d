// The system SQLite (libsqlite3-dev), plus helpers for what Swift cannot spell from sqlite3.h:
// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift does not import.
#ifndef ALSTATS_CSQLITE_SHIM_H
#define ALSTATS_CSQLITE_SHIM_H

#include <sqlite3.h>

/// Binds text that SQLite copies at once, so the caller's buffer may go away after the call.
static inline int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text ? text : "", bytes, SQLITE_TRANSIENT);
}

/// Binds a blob that SQLite copies at once.
static inline int csqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes ? bytes : "", count, SQLITE_TRANSIENT);
}

/// Reads `count` bytes at `offset` of the main database file through SQLite's own file descriptor. Reading
/// through a descriptor of one's own and closing it would drop every POSIX lock this process holds on the
/// file, including those of other open connections (SQLite defers its own closes for that reason).
/// Returns SQLITE_OK, SQLITE_IOERR_SHORT_READ (the rest zero-filled), or another error.
static inline int csqlite_read_main_file(sqlite3 *db, void *buffer, int count, sqlite3_int64 offset) {
    sqlite3_file *file = 0;
    int status = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file);
    if (status != SQLITE_OK) return status;
    if (!file || !file->pMethods) return SQLITE_IOERR_SHORT_READ;
    return file->pMethods->xRead(file, buffer, count, offset);
}

/// Binds text that SQLite does not copy: the caller keeps `text` valid until the statement is reset and the
/// binding is replaced or cleared.
static inline int csqlite_bind_text_static(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text ? text : "", bytes, SQLITE_STATIC);
}

/// Binds a blob that SQLite does not copy, under the same condition.
static inline int csqlite_bind_blob_static(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes ? bytes : "", count, SQLITE_STATIC);
}

/// Returns text from an SQL function; SQLite copies it at once.
static inline void csqlite_result_text(sqlite3_context *context, const char *text, int bytes) {
    sqlite3_result_text(context, text ? text : "", bytes, SQLITE_TRANSIENT);
}

/// Returns a blob from an SQL function; SQLite copies it at once.
static inline void csqlite_result_blob(sqlite3_context *context, const void *bytes, int count) {
    sqlite3_result_blob(context, bytes ? bytes : "", count, SQLITE_TRANSIENT);
}

#endif
