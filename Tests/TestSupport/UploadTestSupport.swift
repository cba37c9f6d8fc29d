import EventStoreSQLite
import EventUpload
import Foundation
import MeasurementEvents

// What the uploader's tests (EventUploadTests) and the runs of the uploader against the built `alstats serve`
// (alstatsTests' Upload/) share.

/// A fresh folder per test, holding its databases; removed when released.
public typealias TemporaryFolder = TemporaryDatabase

/// Writes and commits `events` as the bus would.
public func post(_ events: [MeasurementEvent], to sink: HTTPEventSink) throws {
    try sink.write(events)
    try sink.commit()
}

/// The completeness counts of the database at `path`, as `alstats report` reads them (on a device's outbox, its
/// uploader's counts too).
public func completeness(_ path: String) throws -> [String: [String: Int]] {
    try SQLiteEventStore(path: path).completeness()
}

/// The pushes read an alstats database through SQLiteEventStore's reader, as `alstats push` does.
extension StoreEventLines: PushLineSource {}
