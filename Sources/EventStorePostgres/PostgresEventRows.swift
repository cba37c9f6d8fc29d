import EventIngest
import EventStoreInterface
import MeasurementEvents
import NIOCore

/// Events as the lines of `COPY events FROM STDIN`, redacted, each with its id, time and rollup groups: what a
/// write sends once it has claimed the ids. An ingest makes them on its reader thread (``IngestRows``), from the
/// NDJSON bytes where a line allows it; a collector's batches are made into them by the write itself.
///
/// A line read in place is written from its bytes, its values escaped: only a line the reader takes in place (printable
/// ASCII, values with at most the escapes `\"`, `\\` and `\/`), that no redaction changes and that counts in no link
/// rollup and no device's losses is taken so (``append(_:)-(FlatLine)``); any other goes through its decoded event
/// (``append(_:)-(MeasurementEvent)``), the one way both give the same line.
package struct PostgresEventRows: IngestRows {
    /// The store's redactor, with a count of its own (values it replaced whole, for completeness).
    let redactor: Redactor
    /// The lines, in `COPY`'s text format: the events' ids, times, names, field columns and `extra`, in the events'
    /// order; `\N` for NULL; backslash, tab, newline and carriage return escaped.
    private(set) var text = ByteBuffer()
    /// Where each line of ``text`` ends.
    private(set) var ends: [Int] = []
    /// Each event's id.
    private(set) var ids: [EventID] = []
    /// Each event's time.
    private(set) var timestamps: [Int64] = []
    /// The events' distinct rollup groups (a group may be listed twice: once as read in place, once decoded).
    private(set) var groups: [RollupKey] = []
    /// Each event's rollup group: its index in ``groups``.
    private(set) var group: [Int] = []
    /// The link rollup group and visitor of each event that has one (by its position).
    private(set) var links: [Int: (key: LinkRollupKey, visitor: LinkVisitorKey?)] = [:]
    /// The device's loss record of each event that is one (by its position): counted in completeness, in no rollup.
    private(set) var losses: [Int: DeviceLoss] = [:]

    private var groupIndex: [RollupKey: Int] = [:]
    /// The groups of lines read in place, by their bytes.
    private var flatGroups = FlatRollupGroups()
    /// Scratch of a decoded event's line: its field columns and extra fields.
    private var row = [String?](repeating: nil, count: EventColumns.fields.count)
    private var extra: [(String, String)] = []
    /// Scratch of a line read in place: its fields sorted into its row's columns, and the JSON of its `extra`.
    private var sorted = FlatLineColumns()
    private var extraJSON: [UInt8] = []
    /// The position among the field columns of `targetURL`.
    private let targetPosition = EventColumns.fieldPosition(of: FieldName.targetURL)

    /// Empty rows redacted with `redactor`'s keys (and a count of their own), with room for about `capacity` events
    /// (an ingest's reader makes batches of 1,024 lines).
    init(redactor: Redactor, capacity: Int = 1_024) {
        self.redactor = redactor.withOwnCount()
        text.reserveCapacity(capacity * 640)
        ends.reserveCapacity(capacity)
        ids.reserveCapacity(capacity)
        timestamps.reserveCapacity(capacity)
        group.reserveCapacity(capacity)
    }

    /// The rows of `events`, in their order (a large batch redacted on the cores that are free, as
    /// ``Redactor/redact(_:)-([MeasurementEvent])`` does).
    init(_ events: [MeasurementEvent], redactor: Redactor) {
        self.init(redactor: redactor, capacity: events.count)
        for event in self.redactor.redact(events) { append(redacted: event) }
    }

    package var count: Int { ids.count }

    /// The bytes of line `position` in ``text``.
    func range(of position: Int) -> Range<Int> { (position == 0 ? 0 : ends[position - 1])..<ends[position] }

    private static let fieldCount = EventColumns.fields.count
    private static let successPosition = EventColumns.fieldPosition(ofBindIndex: EventColumns.successIndex)

    package mutating func append(_ event: MeasurementEvent) {
        append(redacted: redactor.redact(event))
    }

    /// Appends an event already redacted with ``redactor``.
    private mutating func append(redacted event: MeasurementEvent) {
        let position = ids.count
        for column in 0..<Self.fieldCount { row[column] = nil }
        // The most bytes the line can take: every value escaped whole, a separator or `\N` per column.
        var length = 3 * (Self.fieldCount + 4) + PostgresCopyText.maximumIntegerLength
        var row = self.row
        self.row = []  // one owner while it is filled (no copy on write)
        let (rollup, success) = EventColumns.columns(of: event, extra: &extra) { bindIndex, value in
            row[EventColumns.fieldPosition(ofBindIndex: bindIndex)] = value
            length += PostgresCopyText.maximumLength(of: value)
        }
        if let known = groupIndex[rollup] {
            group.append(known)
        } else {
            groupIndex[rollup] = groups.count
            group.append(groups.count)
            groups.append(rollup)
        }
        if let link = LinkRollupKey.group(of: event) { links[position] = link }
        if event.name == DeviceLoss.eventName, let loss = DeviceLoss(event) { losses[position] = loss }
        let extraText = extra.isEmpty ? nil : EventColumns.encodeExtra(&extra)
        let id = event.id
        length += PostgresCopyText.maximumLength(of: id) + PostgresCopyText.maximumLength(of: event.name)
        if let extraText { length += PostgresCopyText.maximumLength(of: extraText) }
        text.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
            var line = CopyLine(raw)
            line.cursor += PostgresCopyText.write(id, to: line.cursor)
            line.put(UInt8(ascii: "\t"))
            line.cursor += PostgresCopyText.write(event.timestamp, to: line.cursor)
            line.put(UInt8(ascii: "\t"))
            line.cursor += PostgresCopyText.write(event.name, to: line.cursor)
            for position in 0..<Self.fieldCount {
                line.put(UInt8(ascii: "\t"))
                if position == Self.successPosition {
                    line.putSuccess(success)
                } else if let value = row[position] {
                    line.cursor += PostgresCopyText.write(value, to: line.cursor)
                } else {
                    line.putNull()
                }
            }
            line.put(UInt8(ascii: "\t"))
            if let extraText {
                line.cursor += PostgresCopyText.write(extraText, to: line.cursor)
            } else {
                line.putNull()
            }
            line.put(UInt8(ascii: "\n"))
            assert(line.written <= length, "a COPY line took more than the room reserved for it")
            return line.written
        }
        self.row = row
        finish(id: id, timestamp: event.timestamp)
    }

    package mutating func append(_ line: FlatLine) -> Bool {
        guard line.isWritableAsRead(redactedWith: redactor) else { return false }
        let fields = line.fields
        sorted.sort(fields)
        let columns = sorted.columns
        if FlatLine.equals(line.name, EventName.navIn), columns[targetPosition] >= 0,
            LinkRollupKey.isLinkURL(fields[columns[targetPosition]].value)
        {
            return false  // an arrival at a hosted link's URL: its link rollup is the decoded event's
        }
        group.append(flatGroup(of: line, success: sorted.success))
        writeCopyLine(of: line)
        finish(id: line.id, timestamp: line.timestamp)
        return true
    }

    /// Writes the `COPY` line of `line` (its fields ``sorted``). Its id, name and keys are printable ASCII without
    /// `"` or `\` (a line with any other is not read in place), so they need no escape; a value may hold a `"` (an
    /// array's JSON text, or a `\"` unescaped) or a `\` (a `\\` unescaped). So each value is written escaped for
    /// `COPY`, and `extra`'s JSON as ``EventColumns/encodeExtra(_:)`` writes it, then escaped for `COPY`: each a pass
    /// that copies the bytes whole when nothing needs an escape.
    private mutating func writeCopyLine(of line: FlatLine) {
        let fields = line.fields
        let (columns, success) = (sorted.columns, sorted.success)
        extraJSON.removeAll(keepingCapacity: true)
        sorted.appendExtraJSON(of: fields, to: &extraJSON)
        var length = 3 * (Self.fieldCount + 4) + PostgresCopyText.maximumIntegerLength + 2
        length += PostgresCopyText.maximumLength(of: line.id) + line.name.count + 2 * extraJSON.count
        for position in 0..<Self.fieldCount where columns[position] >= 0 {
            length += 2 * fields[columns[position]].value.count
        }
        let json = extraJSON
        text.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { raw in
            var out = CopyLine(raw)
            if let idText = line.idText {
                out.put(idText)
            } else {
                out.cursor += PostgresCopyText.write(line.id, to: out.cursor)
            }
            out.put(UInt8(ascii: "\t"))
            out.cursor += PostgresCopyText.write(line.timestamp, to: out.cursor)
            out.put(UInt8(ascii: "\t"))
            out.put(line.name)
            for position in 0..<Self.fieldCount {
                out.put(UInt8(ascii: "\t"))
                if position == Self.successPosition {
                    out.putSuccess(success)
                } else if columns[position] >= 0 {
                    out.putEscaped(fields[columns[position]].value)
                } else {
                    out.putNull()
                }
            }
            out.put(UInt8(ascii: "\t"))
            if json.isEmpty {
                out.putNull()
            } else {
                json.withUnsafeBufferPointer { out.putEscaped($0) }
            }
            out.put(UInt8(ascii: "\n"))
            assert(out.written <= length, "a COPY line took more than the room reserved for it")
            return out.written
        }
    }

    /// Records the line just written.
    private mutating func finish(id: EventID, timestamp: Int64) {
        ends.append(text.writerIndex)
        ids.append(id)
        timestamps.append(timestamp)
    }

    /// The rollup group of a line read in place (as ``EventColumns/columns(of:extra:column:)`` makes it of the
    /// decoded event): found by the bytes of its bucket and dimensions, made only for a group not met before.
    private mutating func flatGroup(of line: FlatLine, success: Int64?) -> Int {
        let signature = flatGroups.signature(of: line, success: success, columns: sorted.columns)
        if let known = flatGroups.number(of: signature) { return Int(known) }
        groups.append(FlatRollupGroups.key(of: line, success: success, columns: sorted.columns))
        flatGroups.insert(signature, number: Int32(groups.count - 1))
        return groups.count - 1
    }
}

/// The writing position in a line of ``PostgresEventRows/text`` being written, in memory with room for it.
private struct CopyLine {
    let start: UnsafeMutablePointer<UInt8>
    /// Where the next byte goes.
    var cursor: UnsafeMutablePointer<UInt8>

    init(_ raw: UnsafeMutableRawBufferPointer) {
        guard let start = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            preconditionFailure("writeWithUnsafeMutableBytes gives room for the bytes it was asked for")
        }
        self.start = start
        cursor = start
    }

    var written: Int { cursor - start }

    mutating func put(_ byte: UInt8) {
        cursor.pointee = byte
        cursor += 1
    }

    /// Copies `bytes` as they are (they hold nothing `COPY` escapes).
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        cursor.update(from: base, count: bytes.count)
        cursor += bytes.count
    }

    /// Writes `bytes` escaped for `COPY` (``PostgresCopyText/write(_:to:)-(UnsafeBufferPointer<UInt8>,_)``); there is
    /// room for twice as many.
    mutating func putEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        cursor += PostgresCopyText.write(bytes, to: cursor)
    }

    mutating func putNull() {
        put(UInt8(ascii: "\\"))
        put(UInt8(ascii: "N"))
    }

    mutating func putSuccess(_ success: Int64?) {
        if let success { put(success == 1 ? UInt8(ascii: "1") : UInt8(ascii: "0")) } else { putNull() }
    }
}
