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
        /// The row's rollup group: its position in ``EncodedEvents/groups``.
        var group: Int32
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

    /// The rows' distinct rollup groups, each once: a row names its group by position, so that it holds no copy of
    /// the group's texts and the writer hashes each group once a batch, not once a row.
    let groups: [RollupKey]

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
        var builder = Builder(redactor: redactor, packer: packer, capacity: events.count)
        for (position, event) in events.enumerated() { builder.append(event, position: Int32(position)) }
        self = builder.finish()
    }

    /// The rows, groups and values of a builder, the rows in id-key order.
    fileprivate init(rows: [Row], groups: [RollupKey], values: BoundValues, redactions: Int, dictionary: Int64?) {
        self.rows = rows
        self.groups = groups
        self.values = values
        conservativeRedactions = redactions
        self.dictionary = dictionary
    }

    /// The text bound at parameter `index` (1-based) of `row`, if the row binds one there (tests read it).
    func text(of row: Row, at index: Int32) -> String? {
        values.text(at: index, in: row.values)
    }
}

extension EncodedEvents {
    /// Encodes events one by one, in any order of their positions, into a batch (``finish()``): decoded events
    /// (``append(_:position:)-(MeasurementEvent,_)``), and the lines an ingest reads in place
    /// (``append(_:position:)-(FlatLine,_)``), which give the same rows without a `String` or a dictionary made.
    struct Builder {
        /// A redactor of the same keys with its own count, so that this batch's count travels with its rows.
        let redactor: Redactor
        let packer: EventPacker?
        private(set) var rows: [Row] = []
        var values: BoundValues
        /// The batch's rollup groups, numbered in the order met (``EncodedEvents/groups``).
        private(set) var groups: [RollupKey] = []
        private var groupIndex: [RollupKey: Int32]
        /// The groups of lines read in place, found by their bytes (a group may be listed twice: once from a line
        /// read in place, once from a decoded event; the writer sums them).
        var flatGroups = FlatRollupGroups()
        /// Scratch of a row: its extra fields, its packing, and (for a line read in place) its fields by column.
        var extra: [(String, String)] = []
        var scratch = PackedFields.Scratch()
        var flat = FlatScratch()
        /// The payloads of lines read in place, packed when the batch is finished (by whichever thread seals it,
        /// not by the reader that has the line): each one's blob value and its bytes in `payloads`.
        private var deferred: [(value: Int, payload: Range<Int>)] = []
        private var payloads: [UInt8] = []

        init(redactor: Redactor, packer: EventPacker?, capacity: Int) {
            self.redactor = redactor.withOwnCount()
            self.packer = packer
            rows.reserveCapacity(capacity)
            values = BoundValues(rows: capacity, bytesPerRow: 640)
            groupIndex = [RollupKey: Int32](minimumCapacity: capacity)
        }

        var count: Int { rows.count }

        /// Redacts and encodes `event`, at `position` in the batch (which breaks ties between equal ids).
        mutating func append(_ event: MeasurementEvent, position: Int32) {
            let (row, group) = Row.make(
                redactor.redact(event), key: EventIDKey.key(event.id), position: position, values: &values,
                extra: &extra, packer: packer, scratch: &scratch)
            add(row, group: group)
        }

        /// Adds a row of a group already numbered (``groups``).
        mutating func add(_ row: Row, number: Int32) {
            var row = row
            row.group = number
            rows.append(row)
        }

        /// Numbers a new group (which no row of a decoded event shares: those are found in ``groups`` by key).
        mutating func number(newGroup group: RollupKey) -> Int32 {
            groups.append(group)
            return Int32(groups.count - 1)
        }

        /// Adds a row encoded with its rollup group, numbering the group.
        mutating func add(_ row: Row, group: RollupKey) {
            var row = row
            if let known = groupIndex[group] {
                row.group = known
            } else {
                row.group = Int32(groups.count)
                groupIndex[group] = row.group
                groups.append(group)
            }
            rows.append(row)
        }

        /// Keeps `payload` to be packed into the current row's `packed` value when the batch is finished.
        mutating func deferPacking(_ payload: [UInt8]) {
            let start = payloads.count
            payloads.append(contentsOf: payload)
            deferred.append((values.blobPlaceholder(PackedFields.packedIndex), start..<payloads.count))
        }

        /// The batch, its deferred payloads packed, its rows sorted by id key and then by position: the positions
        /// are sorted, not the rows, which would be moved many times.
        consuming func finish() -> EncodedEvents {
            if let packer {
                for (value, payload) in deferred {
                    scratch.packed.removeAll(keepingCapacity: true)
                    payloads.withUnsafeBytes {
                        packer.pack(UnsafeRawBufferPointer(rebasing: $0[payload]), to: &scratch.packed)
                    }
                    scratch.packed.withUnsafeBytes { values.fillBlob(at: value, $0) }
                }
            }
            let keys = rows.map(\.key)
            let positions = rows.map(\.position)
            var order = Array(rows.indices)
            order.sort { (keys[$0], positions[$0]) < (keys[$1], positions[$1]) }
            let sorted = order.map { rows[$0] }
            return EncodedEvents(
                rows: sorted, groups: groups, values: values, redactions: redactor.takeConservativeRedactions(),
                dictionary: packer?.id)
        }
    }
}

extension EncodedEvents.Row {
    /// The row of `event`, already redacted, its values packed into `values`, and its rollup group (the row's
    /// ``group`` is set by the batch, which numbers the groups).
    static func make(
        _ event: MeasurementEvent, key idKey: Int64, position: Int32, values: inout BoundValues,
        extra: inout [(String, String)], packer: EventPacker?, scratch: inout PackedFields.Scratch
    ) -> (row: Self, group: RollupKey) {
        let first = values.count
        let (rollupKey, success) = EventColumns.pack(
            event, into: &values, extra: &extra, packer: packer, scratch: &scratch)
        let link = LinkRollupKey.group(of: event)
        let row = Self(
            id: event.id, key: idKey, timestamp: event.timestamp, values: first..<values.count, success: success,
            group: 0, link: link?.key, visitor: link?.visitor,
            deviceLoss: event.name == DeviceLoss.eventName ? DeviceLoss(event) : nil, position: position)
        return (row, rollupKey)
    }
}
