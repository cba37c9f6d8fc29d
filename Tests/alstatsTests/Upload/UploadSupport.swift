import EventStore
import Foundation
import MeasurementEvents
import TestSupport

@testable import EventUpload

// What the runs of the uploader against the built `alstats serve` share with EventUploadTests' UploadTestSupport.swift
// (test targets cannot share files): the same names, so that the tests read alike in both targets.

/// A fresh folder per test, holding its databases; removed when released.
typealias TemporaryFolder = TemporaryDatabase

/// `count` events with distinct ids, the `index` field numbering them.
func numberedEvents(_ count: Int, start: Int = 0, padding: Int = 0) -> [MeasurementEvent] {
    (start..<start + count).map { index in
        var fields = [FieldName.ref: "feed", "index": String(index)]
        if padding > 0 { fields["padding"] = String(repeating: "x", count: padding) }
        return MeasurementEvent(
            id: EventID(uuidHigh: 0x0192_f5c3_8a1b_7000, low: 0x8000_0000_0000_0000 | UInt64(index)),
            name: EventName.navOut, fields: fields, timestamp: 1_763_683_200_000 + Int64(index))
    }
}

/// Writes and commits `events` as the bus would.
func post(_ events: [MeasurementEvent], to sink: HTTPEventSink) throws {
    try sink.write(events)
    try sink.commit()
}

/// The completeness counts of the database at `path`.
func completeness(_ path: String) throws -> [String: [String: Int]] {
    try EventStore(path: path).completeness()
}
