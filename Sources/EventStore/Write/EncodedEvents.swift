import MeasurementEvents

/// A batch of events made ready to insert: redacted, mapped to the values each column binds, their rollup
/// groups and id keys read, and sorted by id key; the store's writer then only binds, inserts and counts.
///
/// Made with ``EventStore/encode(_:)`` on the caller's thread or task, so that the work that does not need
/// the database (redaction above all) runs on every core at once instead of on the one writer;
/// written with ``EventStore/writeBatches(encoded:losses:)``, which stores exactly what
/// ``EventStore/writeBatches(_:losses:)`` stores for the same events.
///
/// ```swift
/// let encoded = store.encode(events)                   // on the request's task
/// let stored = try store.writeBatches(encoded: [encoded])  // on the writer
/// ```
public struct EncodedEvents: Sendable {
    /// One event as the columns of `events` (Migrations/0001) bind it.
    struct Row: Sendable {
        var id: EventID
        /// The id's key in the id index (``EventIDKey``).
        var key: Int64
        var timestamp: Int64
        var name: String
        /// The fields with a text column, with their bind index.
        var columns: [(index: Int32, value: String)]
        var success: Int64?
        /// The other fields as a JSON object (``EventColumns/encodeExtra(_:)``).
        var extra: String?
        var rollup: RollupKey
        /// The hosted links funnel's group, for a link hit or an arrival at a link URL.
        var link: LinkRollupKey?
        var visitor: LinkVisitorKey?
        /// The device's loss count when the event is a ``DeviceLoss`` record (then it is no App Links event).
        var deviceLoss: DeviceLoss?
        /// The position in the batch as given, which breaks ties between equal ids (the first one is stored).
        var position: Int32
    }

    /// The rows, ordered by id key and then by position.
    let rows: [Row]

    /// Values the redaction replaced whole (``Redactor/conservativeRedactions``) in these events: counted as
    /// `altered` in the transaction that stores them, and not at all when they are not stored.
    let conservativeRedactions: Int

    /// How many events the batch holds.
    public var count: Int { rows.count }

    /// Whether the batch holds no event.
    public var isEmpty: Bool { rows.isEmpty }

    /// Redacts `events` with `redactor` and encodes them.
    init(_ events: [MeasurementEvent], redactor: Redactor) {
        // A redactor of the same keys with its own count, so that this batch's count travels with its rows.
        let own = redactor.withOwnCount()
        // The positions are sorted, not the rows: a row is large, and moving it costs a retain per string.
        let keys = events.map { EventIDKey.key($0.id) }
        var order = Array(events.indices)
        order.sort { (keys[$0], $0) < (keys[$1], $1) }
        var extra: [(String, String)] = []
        var rows: [Row] = []
        rows.reserveCapacity(events.count)
        for position in order {
            rows.append(
                Row(own.redact(events[position]), key: keys[position], position: Int32(position), extra: &extra))
        }
        self.rows = rows
        conservativeRedactions = own.takeConservativeRedactions()
    }
}

extension EncodedEvents.Row {
    /// The row of `event`, already redacted.
    init(_ event: MeasurementEvent, key idKey: Int64, position: Int32, extra: inout [(String, String)]) {
        var columns: [(index: Int32, value: String)] = []
        columns.reserveCapacity(event.fields.count)
        let (rollupKey, success) = EventColumns.columns(of: event, extra: &extra) { index, value in
            columns.append((index, value))
        }
        id = event.id
        key = idKey
        timestamp = event.timestamp
        name = event.name
        self.columns = columns
        self.success = success
        self.extra = extra.isEmpty ? nil : EventColumns.encodeExtra(&extra)
        rollup = rollupKey
        let group = LinkRollupKey.group(of: event)
        link = group?.key
        visitor = group?.visitor
        deviceLoss = event.name == DeviceLoss.eventName ? DeviceLoss(event) : nil
        self.position = position
    }

    /// Inserts `row` with an insert statement (Statements/insert_event.sql), its values bound in place from
    /// `values`. The row is read in place, a field at a time: a copy of the whole row would retain each of its
    /// strings.
    static func insert(
        _ row: UnsafePointer<Self>, with statement: SQLiteStatement, values: inout BoundValues
    ) throws(StoreError) {
        try EventColumns.insertRow(
            row.pointee.id, timestamp: row.pointee.timestamp, name: row.pointee.name, with: statement, values: &values
        ) { values in
            for (index, value) in row.pointee.columns { values.text(index, value) }
            if let extra = row.pointee.extra { values.text(EventColumns.extraIndex, extra) }
            return (row.pointee.success, ())
        }
    }
}
