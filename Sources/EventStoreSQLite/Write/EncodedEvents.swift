import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// A batch of events made ready to insert: redacted, mapped to the values each column binds, their rollup
/// groups and id keys read, and sorted by id key; the store's writer then only binds, inserts and counts.
///
/// Made with ``SQLiteEventStore/encode(_:)`` on the caller's thread or task, so that the work that does not need
/// the database (redaction above all) runs on every core at once instead of on the one writer;
/// written with ``SQLiteEventStore/writeBatches(encoded:losses:)``, which stores exactly what
/// ``SQLiteEventStore/writeBatches(_:losses:)`` stores for the same events.
///
/// ```swift
/// let encoded = store.encode(events)                   // on the request's task
/// let stored = try store.writeBatches(encoded: [encoded])  // on the writer
/// ```
public struct EncodedEvents: Sendable {
    /// One event as the insert (Statements/insert_event.sql) binds it: its time and `success` by value, its id,
    /// name, text columns and `extra` packed in ``EncodedEvents/values`` (one buffer for the whole batch, which
    /// the writer binds in place: no string of the row is retained, copied or freed on the writer's thread).
    struct Row: Sendable {
        var id: EventID
        /// The id's key in the id index (``EventIDKey``).
        var key: Int64
        var timestamp: Int64
        /// The row's values in ``EncodedEvents/values``.
        var values: Range<Int>
        var success: Int64?
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

    /// The packed text and blob values of every row (``EventColumns/pack(_:into:extra:)``).
    let values: BoundValues

    /// Values the redaction replaced whole (``Redactor/conservativeRedactions``) in these events: counted as
    /// `altered` in the transaction that stores them, and not at all when they are not stored.
    let conservativeRedactions: Int

    /// The id of the dictionary its rows were packed with, or `nil` when they were not packed.
    let dictionary: Int64?
    /// How many events the batch holds.
    public var count: Int { rows.count }

    /// Whether the batch holds no event.
    public var isEmpty: Bool { rows.isEmpty }

    /// Redacts `events` with `redactor` and encodes them.
    init(_ events: [MeasurementEvent], redactor: Redactor, packer: EventPacker?) {
        // A redactor of the same keys with its own count, so that this batch's count travels with its rows.
        let own = redactor.withOwnCount()
        // The positions are sorted, not the rows: a row is large, and moving it costs a retain per string.
        let keys = events.map { EventIDKey.key($0.id) }
        var order = Array(events.indices)
        order.sort { (keys[$0], $0) < (keys[$1], $1) }
        var extra: [(String, String)] = []
        var scratch = PackedFields.Scratch()
        var values = BoundValues(rows: events.count, bytesPerRow: 640)
        var rows: [Row] = []
        rows.reserveCapacity(events.count)
        for position in order {
            rows.append(
                Row(
                    own.redact(events[position]), key: keys[position], position: Int32(position), values: &values,
                    extra: &extra, packer: packer, scratch: &scratch))
        }
        self.rows = rows
        self.values = values
        dictionary = packer?.id
        conservativeRedactions = own.takeConservativeRedactions()
    }

    /// The text bound at parameter `index` (1-based) of `row`, if the row binds one there (tests read it).
    func text(of row: Row, at index: Int32) -> String? {
        values.text(at: index, in: row.values)
    }
}

extension EncodedEvents.Row {
    /// The row of `event`, already redacted, its values packed into `values`.
    init(
        _ event: MeasurementEvent, key idKey: Int64, position: Int32, values: inout BoundValues,
        extra: inout [(String, String)], packer: EventPacker?, scratch: inout PackedFields.Scratch
    ) {
        let first = values.count
        let (rollupKey, success) = EventColumns.pack(
            event, into: &values, extra: &extra, packer: packer, scratch: &scratch)
        id = event.id
        key = idKey
        timestamp = event.timestamp
        self.values = first..<values.count
        self.success = success
        rollup = rollupKey
        let group = LinkRollupKey.group(of: event)
        link = group?.key
        visitor = group?.visitor
        deviceLoss = event.name == DeviceLoss.eventName ? DeviceLoss(event) : nil
        self.position = position
    }
}
