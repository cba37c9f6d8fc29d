import Foundation
import MeasurementEvents
import SQLiteSupport

/// Opens the uploader's database and applies its schema (`Migrations/upload/`); and counts the device's losses in
/// its own completeness table. The uploader knows no store: the file is opened with SQLiteSupport's checks, and the
/// only tables it writes are its own (docs/design/architecture.md).
enum UploadDatabase {
    /// Opens `path` checked (a file that is not SQLite, is damaged, or has a newer schema is refused and left
    /// untouched), in WAL with `options`' durability and busy timeout, then applies the uploader's migrations
    /// (`Migrations/upload/`, recorded in `upload_schema_migrations`).
    /// - Parameters:
    ///   - create: create the file when it does not exist (the outbox); `false` refuses a missing file (push).
    ///   - checkingIntegrity: run `PRAGMA quick_check` on a file of up to 256 MiB (the outbox's first connection);
    ///     `false` checks only a file with the uploader's migrations pending, whatever its size (a second
    ///     connection; the push's, whose first push to a store adds the uploader's tables to it).
    /// - Throws: ``SQLiteError`` naming the file and what to do.
    static func open(path: String, options: OutboxOptions, create: Bool, checkingIntegrity: Bool = true)
        throws(SQLiteError) -> SQLiteConnection
    {
        var settings = SQLiteConnection.OpenSettings(create: create, busyTimeout: options.busyTimeout)
        if !checkingIntegrity { settings.integrityCheckLimit = 0 }
        let connection = try SQLiteConnection.openChecked(path: path, settings: settings, migrator: UploadSQL.migrator)
        if options.durability == .full {
            try connection.execute("PRAGMA synchronous = FULL", doing: "setting the outbox's durability")
        }
        return connection
    }

    /// Adds `losses` to the device's completeness (`upload_completeness`, the uploader's own table) through
    /// `connection`, inside its open transaction, so that `alstats report` on the file shows what the device lost.
    static func countInCompleteness(
        _ losses: [DropReason: Int], now: Int64, on connection: SQLiteConnection
    ) throws(SQLiteError) {
        guard losses.values.contains(where: { $0 > 0 }) else { return }
        let upsert = try connection.prepare(UploadSQL.statement("upsert_upload_completeness"))
        for (reason, count) in losses.sorted(by: { $0.key < $1.key }) where count > 0 {
            upsert.bind(1, reason.completenessKind)
            upsert.bind(2, reason.rawValue)
            upsert.bind(3, Int64(count))
            upsert.bind(4, now)
            try upsert.run()
        }
    }
}
