import EventStore
import MeasurementEvents
import PostgresNIO

/// The events of one ``PostgresEventStore/writeBatches(_:losses:)`` call, ready to write: redacted, one event per
/// id (the first of the call, as the SQLite store keeps the first), sorted by id so that concurrent writers
/// claim ids in one order.
struct PostgresWritePlan {
    /// An event of the call and the batch it came in.
    struct Candidate {
        var batch: Int
        var id: String
        var event: MeasurementEvent
    }

    /// The events, one per id, by id.
    var candidates: [Candidate]
    /// How many batches the call had.
    var batchCount: Int

    /// The plan for `batches` (already redacted).
    init(batches: [[MeasurementEvent]]) {
        batchCount = batches.count
        var seen: Set<String> = []
        var candidates: [Candidate] = []
        for (batch, events) in batches.enumerated() {
            for event in events {
                let id = event.id.description
                if seen.insert(id).inserted { candidates.append(Candidate(batch: batch, id: id, event: event)) }
            }
        }
        candidates.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        self.candidates = candidates
    }

    /// The columns of `events` that ``copyRows()`` writes, in its order: as the SQLite store's `events` (id, time,
    /// name, ``EventColumns/fields``, extra).
    static let columns = ["id", "ts_ms", "name"] + EventColumns.fields.map(\.column) + ["extra"]

    /// The candidates as lines of `COPY events FROM STDIN`, made before their ids are claimed.
    struct CopyRows {
        /// The rows of `events` in `COPY`'s text format: one line each, in the plan's order, `\N` for NULL;
        /// backslash, tab, newline and carriage return escaped.
        var text: ByteBuffer
        /// Where each candidate's line ends in ``text``.
        var ends: [Int]
        /// Each candidate's rollup group, read in the same pass over its fields.
        var rollups: [RollupKey]
    }

    /// The candidates' lines of `COPY events FROM STDIN`, and their rollup groups.
    func copyRows() -> CopyRows {
        let fieldCount = EventColumns.fields.count
        let successPosition = EventColumns.fieldPosition(ofBindIndex: EventColumns.successIndex)
        var text = ByteBuffer()
        text.reserveCapacity(candidates.count * 640)
        var ends: [Int] = []
        ends.reserveCapacity(candidates.count)
        var rollups: [RollupKey] = []
        rollups.reserveCapacity(candidates.count)
        var row = [String?](repeating: nil, count: fieldCount)
        var extra: [(String, String)] = []
        for candidate in candidates {
            let event = candidate.event
            for position in 0..<fieldCount { row[position] = nil }
            let (rollup, success) = EventColumns.columns(of: event, extra: &extra) { index, value in
                row[EventColumns.fieldPosition(ofBindIndex: index)] = value
            }
            rollups.append(rollup)
            PostgresCopyText.write(candidate.id, to: &text)
            text.writeInteger(UInt8(ascii: "\t"))
            text.writeString(String(event.timestamp))
            text.writeInteger(UInt8(ascii: "\t"))
            PostgresCopyText.write(event.name, to: &text)
            for position in 0..<fieldCount {
                text.writeInteger(UInt8(ascii: "\t"))
                if position == successPosition {
                    if let success { text.writeString(success == 1 ? "1" : "0") } else { text.writeStaticString("\\N") }
                } else if let value = row[position] {
                    PostgresCopyText.write(value, to: &text)
                } else {
                    text.writeStaticString("\\N")
                }
            }
            text.writeInteger(UInt8(ascii: "\t"))
            if extra.isEmpty {
                text.writeStaticString("\\N")
            } else {
                PostgresCopyText.write(EventColumns.encodeExtra(&extra), to: &text)
            }
            text.writeInteger(UInt8(ascii: "\n"))
            ends.append(text.writerIndex)
        }
        return CopyRows(text: text, ends: ends, rollups: rollups)
    }
}
