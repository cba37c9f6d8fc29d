import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

extension SQLiteEventStore {
    /// Opens `path` after checking it, configures the connection and migrates (SQLiteSupport's
    /// ``SQLiteConnection/openChecked(path:settings:migrator:beforeMigrating:)`` with the store's schema).
    static func openChecked(path: String, options: Options) throws(SQLiteError) -> SQLiteConnection {
        var settings = SQLiteConnection.OpenSettings(
            create: options.create, busyTimeout: options.busyTimeout,
            integrityCheckLimit: options.integrityCheckLimit, walCheckpoints: options.walCheckpoints)
        // A prune gives the pages of the events it deleted back a few at a time (SQLitePrune).
        settings.incrementalVacuum = true
        // Before migrating: migration 0011 computes the id index's keys with it; packing uses the others.
        let connection = try SQLiteConnection.openChecked(
            path: path, settings: settings, migrator: SchemaMigrator(),
            beforeMigrating: { connection throws(SQLiteError) in
                try EventIDKey.register(on: connection)
                try EventPackFunctions.register(on: connection)
            })
        if let pages = options.maximumPageCount {
            _ = try connection.scalarInt("PRAGMA max_page_count = \(max(1, pages))")
        }
        return connection
    }
}
