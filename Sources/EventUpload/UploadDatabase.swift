import EventStore
import EventStoreInterface
import Foundation
import MeasurementEvents
import SQLiteSupport

/// Opens the uploader's database and applies its schema; and holds what the uploader still asks of the alstats
/// store whose file it may share (docs/upload.md: the outbox may be the app's alstats store). Every use of
/// EventStore by this module, besides the SQLite wrapper (`SQLiteConnection`, `SQLiteStatement`, `SchemaMigrator`,
/// `StoreError`), the NDJSON codec (`NDJSONCodec.line(for:)`) and the push's reads of `events`
/// (`EventStore.forEachLine`, `EventStore.countEvents`, in PushSource), is in this file.
enum UploadDatabase {
    /// Opens `path` checked (a file that is not SQLite, is damaged, or has a newer schema is refused and left
    /// untouched), in WAL with `options`' durability and busy timeout, with EventStore's schema (the
    /// `completeness` table the uploader counts its losses in, ``countInCompleteness(_:on:)``), then applies the
    /// uploader's own migrations (`Migrations/upload/`, recorded in `upload_schema_migrations`).
    /// - Parameters:
    ///   - create: create the file when it does not exist (the outbox); `false` refuses a missing file (push).
    ///   - checkingIntegrity: run `PRAGMA quick_check` on a file of up to 256 MiB (the first connection only).
    /// - Throws: ``StoreError`` naming the file and what to do.
    static func open(path: String, options: OutboxOptions, create: Bool, checkingIntegrity: Bool = true)
        throws(StoreError) -> SQLiteConnection
    {
        var storeOptions = EventStore.Options(
            create: create, redactor: options.redactor, busyTimeout: options.busyTimeout)
        if !checkingIntegrity { storeOptions.integrityCheckLimit = 0 }
        let connection = try EventStore.openConnection(path: path, options: storeOptions)
        if options.durability == .full {
            try connection.execute("PRAGMA synchronous = FULL", doing: "setting the outbox's durability")
        }
        try UploadSQL.migrator.migrate(connection)
        return connection
    }

    /// Adds `losses` to the database's `completeness` table (EventStore's) through `connection`, inside its open
    /// transaction, so that `alstats report` on the file shows what the device lost.
    static func countInCompleteness(_ losses: [DropReason: Int], on connection: SQLiteConnection) throws(StoreError) {
        try EventStore.recordLosses(losses, on: connection, nowMilliseconds: nowMilliseconds)
    }

    /// Now, in milliseconds since the Unix epoch.
    static var nowMilliseconds: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
