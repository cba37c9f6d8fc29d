import EventStore
import MeasurementEvents
import PostgresNIO

/// The events of one ``PostgresEventStore/writeBatches(_:losses:)`` call, ready to write: redacted, one event per
/// id (the first of the call, as the SQLite store keeps the first), sorted by id so that concurrent writers
/// claim ids in one order.
struct PostgresWritePlan {
    /// An event of the call: where it is in the call's batches, and its id. The event itself stays in
    /// ``batches``: a copy of it would be a retain and a release of each of its parts, for every event written.
    struct Candidate {
        var batch: Int
        /// Its place in its batch.
        var position: Int
        var id: EventID
    }

    /// The call's batches, redacted: the candidates' events, read in place (``event(_:)``).
    var batches: [[MeasurementEvent]]
    /// The events, one per id, by id.
    var candidates: [Candidate]
    /// The candidates' ids (the set that picked them, kept for the write in line after: ``WriteTurn/heldIDs``).
    var idSet: Set<EventID>
    /// The candidates' times, in the plan's order (for the lines' order and the partitions they need).
    var timestamps: [Int64]
    /// How many batches the call had.
    var batchCount: Int { batches.count }

    /// The plan for `batches` (already redacted).
    init(batches: [[MeasurementEvent]]) {
        self.batches = batches
        let total = batches.reduce(0) { $0 + $1.count }
        var seen = Set<EventID>(minimumCapacity: total)
        // The first event of each id, as its place in `batches` and its id; sorted as places, not as events.
        var places: [Candidate] = []
        places.reserveCapacity(total)
        for batch in batches.indices {
            batches[batch].withUnsafeBufferPointer { events in
                for index in events.indices {
                    let id = events[index].id
                    if seen.insert(id).inserted { places.append(Candidate(batch: batch, position: index, id: id)) }
                }
            }
        }
        idSet = seen
        var order = Array(places.indices)
        places.withUnsafeBufferPointer { places in
            order.sort { PostgresWritePlan.precedes(places[$0].id, places[$1].id) }
        }
        candidates = order.map { places[$0] }
        timestamps = candidates.map { batches[$0.batch][$0.position].timestamp }
    }

    /// A candidate's event.
    @inline(__always)
    func event(_ candidate: Candidate) -> MeasurementEvent { batches[candidate.batch][candidate.position] }

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

    /// The columns of `events` that ``copyRows()`` writes, in its order: as the SQLite store's `events` (id, time,
    /// name, ``EventColumns/fields``, extra).
    static let columns = ["id", "ts_ms", "name"] + EventColumns.fields.map(\.column) + ["extra"]

    /// The candidates as lines of `COPY events FROM STDIN`, made before their ids are claimed.
    struct CopyRows {
        /// The rows of `events` in `COPY`'s text format: one line each, in time order (``order``), `\N` for NULL;
        /// backslash, tab, newline and carriage return escaped.
        ///
        /// Time order, not the plan's (by id), because `events_by_time` is keyed by time: rows that come in its
        /// order go in at its rightmost page, where the plan's random order would go down the index for each row
        /// and touch a page of its own. For 193,943 realistic events in chunks of 8,192 into `events` in psql:
        /// 0.75–1.01 s in time order against 1.12–1.50 s by id, five alternated runs each (2026-11-26).
        var text: ByteBuffer
        /// The candidates (their indices in the plan) in the order of their lines: by time, then by id.
        var order: [Int]
        /// Where each line of ``text`` ends: `ends[k]` for the line of candidate `order[k]`.
        var ends: [Int]
        /// The candidates' ids, escaped as in ``text``, one line each in the plan's order: the lines of `COPY
        /// event_ids FROM STDIN` that claim them all.
        var ids: ByteBuffer
        /// The candidates' distinct rollup groups, read in the same pass over their fields.
        var groups: [RollupKey]
        /// Each candidate's rollup group (by its index in the plan): its index in ``groups``.
        var group: [Int]
        /// The link rollup group and visitor of each candidate that has one (by its index): the hosted links' events.
        var links: [Int: (key: LinkRollupKey, visitor: LinkVisitorKey?)]
        /// The device's loss record of each candidate that is one (by its index): counted in completeness, in no
        /// rollup.
        var losses: [Int: DeviceLoss]

        /// ``ids`` without the lines of the candidates `skipped` marks (an escaped id holds no raw line end).
        func ids(skipping skipped: [Bool]) -> ByteBuffer {
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
    }

    /// The candidates' lines of `COPY events FROM STDIN`, and their rollup groups (hashed here, before the ids are
    /// claimed, so that the claimed events are only counted).
    func copyRows() -> CopyRows {
        let fieldCount = EventColumns.fields.count
        let successPosition = EventColumns.fieldPosition(ofBindIndex: EventColumns.successIndex)
        var text = ByteBuffer()
        text.reserveCapacity(candidates.count * 640)
        var ends: [Int] = []
        ends.reserveCapacity(candidates.count)
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
        var groups: [RollupKey] = []
        var groupIndex: [RollupKey: Int] = [:]
        var group = [Int](repeating: 0, count: candidates.count)
        var links: [Int: (key: LinkRollupKey, visitor: LinkVisitorKey?)] = [:]
        var losses: [Int: DeviceLoss] = [:]
        var row = [String?](repeating: nil, count: fieldCount)
        var extra: [(String, String)] = []
        let order = timeOrder()
        for index in order {
            let event = event(candidates[index])
            let id = candidates[index].id
            for position in 0..<fieldCount { row[position] = nil }
            // The most bytes the line can take: every value escaped whole, a separator or `\N` per column.
            var length = 3 * (fieldCount + 4) + PostgresCopyText.maximumIntegerLength
            let (rollup, success) = EventColumns.columns(of: event, extra: &extra) { bindIndex, value in
                row[EventColumns.fieldPosition(ofBindIndex: bindIndex)] = value
                length += PostgresCopyText.maximumLength(of: value)
            }
            if let known = groupIndex[rollup] {
                group[index] = known
            } else {
                groupIndex[rollup] = groups.count
                group[index] = groups.count
                groups.append(rollup)
            }
            if let link = LinkRollupKey.group(of: event) { links[index] = link }
            if event.name == DeviceLoss.eventName, let loss = DeviceLoss(event) { losses[index] = loss }
            let extraText = extra.isEmpty ? nil : EventColumns.encodeExtra(&extra)
            length += PostgresCopyText.maximumLength(of: id) + PostgresCopyText.maximumLength(of: event.name)
            if let extraText { length += PostgresCopyText.maximumLength(of: extraText) }
            text.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
                guard let start = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                    preconditionFailure("writeWithUnsafeMutableBytes gives room for the bytes it was asked for")
                }
                var out = start
                func put(_ byte: UInt8) {
                    out.pointee = byte
                    out += 1
                }
                func putNull() {
                    put(UInt8(ascii: "\\"))
                    put(UInt8(ascii: "N"))
                }
                out += PostgresCopyText.write(id, to: out)
                put(UInt8(ascii: "\t"))
                out += PostgresCopyText.write(event.timestamp, to: out)
                put(UInt8(ascii: "\t"))
                out += PostgresCopyText.write(event.name, to: out)
                for position in 0..<fieldCount {
                    put(UInt8(ascii: "\t"))
                    if position == successPosition {
                        if let success { put(success == 1 ? UInt8(ascii: "1") : UInt8(ascii: "0")) } else { putNull() }
                    } else if let value = row[position] {
                        out += PostgresCopyText.write(value, to: out)
                    } else {
                        putNull()
                    }
                }
                put(UInt8(ascii: "\t"))
                if let extraText { out += PostgresCopyText.write(extraText, to: out) } else { putNull() }
                put(UInt8(ascii: "\n"))
                return out - start
            }
            ends.append(text.writerIndex)
        }
        return CopyRows(
            text: text, order: order, ends: ends, ids: ids, groups: groups, group: group, links: links, losses: losses)
    }

    /// The candidates' indices by time, then by their place in the plan (by id): the order of `events_by_time`.
    func timeOrder() -> [Int] {
        var keys = zip(timestamps, candidates.indices).map { (time: $0, index: $1) }
        keys.sort { ($0.time, $0.index) < ($1.time, $1.index) }
        return keys.map(\.index)
    }
}
