import EventStoreInterface
import EventStoreSQLite
import Foundation
import MeasurementEvents

/// A fresh SQLite database per test holding `events` (written by SQLiteEventStore) and the hosted links' public URLs,
/// removed afterwards with its ``TemporaryDatabase``: for the report's tests and the runs of `alstats report`.
public final class ReportDatabase {
    public let temporary = TemporaryDatabase()
    public var folder: URL { temporary.folder }
    public var path: String { temporary.path }
    public let store: SQLiteEventStore

    /// Writes `events` in several batches, some events twice (duplicates must count once), after recording
    /// `publicURLs`.
    public init(events: [MeasurementEvent] = [], publicURLs: [String] = []) throws {
        store = try SQLiteEventStore(path: temporary.path)
        for url in publicURLs {
            guard let publicURL = LinkPublicURL(url) else {
                throw StoreError(.invalidLocation, path: url, "not a public URL: \(url)")
            }
            try store.recordPublicURL(publicURL)
        }
        var index = 0
        while index < events.count {
            let batch = Array(events[index..<min(events.count, index + 997)])
            try store.write(batch)
            if index % 3 == 0 { try store.write(Array(batch.prefix(50))) }
            index += batch.count
        }
    }
}
