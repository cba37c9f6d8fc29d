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

#endif
