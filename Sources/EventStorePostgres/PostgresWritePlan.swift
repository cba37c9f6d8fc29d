import EventStoreInterface
import MeasurementEvents
import PostgresNIO

/// The events of one ``PostgresEventStore/writeBatches(_:losses:)`` call, ready to write: redacted, one event per
/// id (the first of the call, as the SQLite store keeps the first), sorted by id so that concurrent writers
/// claim ids in one order.
struct PostgresWritePlan {
    /// An event of the call: where it is in the call's batches (its line in their rows), and its id.
    struct Candidate {
        var batch: Int
        /// Its place in its batch.
        var position: Int
        var id: EventID
    }

    /// The call's batches as rows: the candidates' lines, redacted.
    var batches: [PostgresEventRows]
    /// The events, one per id, by id.
    var candidates: [Candidate]
    /// The candidates' ids (the set that picked them, kept for the write in line after: ``WriteTurn/heldIDs``).
    var idSet: Set<EventID>
    /// The candidates' times, in the plan's order (for the lines' order and the partitions they need).
    var timestamps: [Int64]
    /// How many batches the call had.
    var batchCount: Int { batches.count }

    /// The plan for the events of `batches`, redacted with `redactor`'s keys.
    init(batches: [[MeasurementEvent]], redactor: Redactor) {
        self.init(rows: batches.map { PostgresEventRows($0, redactor: redactor) })
    }

    /// The plan for the events of `batches`.
    init(rows batches: [PostgresEventRows]) {
        self.batches = batches
        let total = batches.reduce(0) { $0 + $1.count }
        var seen = Set<EventID>(minimumCapacity: total)
        // The first event of each id, as its place in `batches` and its id; sorted as places, not as events.
        var places: [Candidate] = []
        places.reserveCapacity(total)
        for batch in batches.indices {
            for (index, id) in batches[batch].ids.enumerated() where seen.insert(id).inserted {
                places.append(Candidate(batch: batch, position: index, id: id))
            }
        }
        idSet = seen
        var order = Array(places.indices)
        let uuids = places.compactMap(\.id.uuidValue)
        if uuids.count == places.count {
            // Every id a UUID (as most are): sorted by their bits, read from one array.
            uuids.withUnsafeBufferPointer { uuids in order.sort { uuids[$0] < uuids[$1] } }
        } else {
            places.withUnsafeBufferPointer { places in
                order.sort { PostgresWritePlan.precedes(places[$0].id, places[$1].id) }
            }
        }
        candidates = order.map { places[$0] }
        timestamps = candidates.map { batches[$0.batch].timestamps[$0.position] }
    }

    /// Whether `first`'s text sorts before `second`'s, byte by byte (as `COLLATE "C"` sorts them). Two UUIDs
    /// compare as numbers: their canonical texts (lowercase hex digits, dashes at the same places) sort alike.
    static func precedes(_ first: EventID, _ second: EventID) -> Bool {
        if let (firstHigh, firstLow) = first.uuidValue, let (secondHigh, secondLow) = second.uuidValue {
            return (firstHigh, firstLow) < (secondHigh, secondLow)
        }
        return first.description.utf8.lexicographicallyPrecedes(second.description.utf8)
    }

    /// Which candidates the claim (Statements/claim_ids.sql) returned, given its rows (the ids' texts): by position.
    ///
    /// The claim returns the ids it inserted in the order it was given them, the plan's, so they are matched in one
    /// walk; a row out of that order (nothing in SQL promises it) is looked up instead. A row's text gives back
    /// the id it was written from (``EventID/description``: a UUID's canonical text reads as that UUID).
    func claimed(_ returned: [String]) -> [Bool] {
        let returned = returned.map(EventID.init)
        var claimed = [Bool](repeating: false, count: candidates.count)
        var position = 0
        for id in returned {
            while position < candidates.count, candidates[position].id != id { position += 1 }
            guard position < candidates.count else { return claimedByLookup(returned) }
            claimed[position] = true
            position += 1
        }
        return claimed
    }

    /// ``claimed(_:)`` for rows in any order.
    func claimedByLookup(_ returned: [EventID]) -> [Bool] {
        let returned = Set(returned)
        return candidates.map { returned.contains($0.id) }
    }

    /// The columns of `events` that the rows' lines hold, in their order: as the SQLite store's `events` (id, time,
    /// name, ``EventColumns/fields``, extra).
    static let columns = ["id", "ts_ms", "name"] + EventColumns.fields.map(\.column) + ["extra"]

    /// The candidates' ids, escaped, one line each in the plan's order: the lines of `COPY event_ids FROM STDIN` that
    /// claim them all.
    func idLines() -> ByteBuffer {
        var ids = ByteBuffer()
        ids.reserveCapacity(candidates.count * 37)
        for candidate in candidates {
            let room = PostgresCopyText.maximumLength(of: candidate.id) + 1
            ids.writeWithUnsafeMutableBytes(minimumWritableBytes: room) {
                guard let out = $0.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                    preconditionFailure("writeWithUnsafeMutableBytes gives room for the bytes it was asked for")
                }
                let written = PostgresCopyText.write(candidate.id, to: out)
                out[written] = UInt8(ascii: "\n")
                return written + 1
            }
        }
        return ids
    }

    /// `ids` (``idLines()``) without the lines of the candidates `skipped` marks (an escaped id holds no raw line end).
    static func idLines(_ ids: ByteBuffer, skipping skipped: [Bool]) -> ByteBuffer {
        var kept = ByteBuffer()
        kept.reserveCapacity(ids.readableBytes)
        ids.withUnsafeReadableBytes { bytes in
            var start = 0
            var line = 0
            for end in bytes.indices where bytes[end] == UInt8(ascii: "\n") {
                if !skipped[line] { kept.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[start...end])) }
                start = end + 1
                line += 1
            }
        }
        return kept
    }

    /// The candidates' indices by time, then by their place in the plan (by id): the order in which their lines go
    /// into `COPY events`.
    ///
    /// Time order, not the plan's (by id), so that a month's rows lie on disk in about time order: what keeps each
    /// range of pages of the BRIN index `events_by_time` (Migrations/postgres/0006) narrow, so that a read by time visits
    /// only the pages that may hold its window. (While `events_by_time` was a B-tree, the same order saved a descent
    /// and a page per row: for 193,943 realistic events in chunks of 8,192 into `events` in psql, 0.75–1.01 s in
    /// time order against 1.12–1.50 s by id, five alternated runs each, 2026-11-26.)
    func timeOrder() -> [Int] {
        var keys = zip(timestamps, candidates.indices).map { (time: $0, index: $1) }
        keys.sort { ($0.time, $0.index) < ($1.time, $1.index) }
        return keys.map(\.index)
    }
}
