import Dispatch
import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// A slice of a large write made ready on another thread while the writer inserts the slice before it: its new
/// events redacted, their column values packed into one buffer, their rollup groups counted.
///
/// The writer's thread then only binds pointers into the buffer (`SQLITE_STATIC`), steps the insert and adds
/// each id to the id index: the redaction, the mapping of fields to columns, the copies of their bytes, the
/// rollup and link keys and the freeing of the events all happen beside it (docs/design/storage-layout.md, "The
/// sink's writer thread").
struct PackedSlice {
    /// One new event of the slice.
    struct Row {
        /// The event's position in the write's batch.
        var position: Int
        /// Its values' positions in ``PackedSlice/values``.
        var values: Range<Int>
        var timestamp: Int64
        var success: Int64?
        /// The hosted links funnel's group, for a link hit or an arrival at a link URL.
        var link: LinkRollupKey?
        var visitor: LinkVisitorKey?
        /// The device's loss count when the event is a ``DeviceLoss`` record (then it is no App Links event).
        var deviceLoss: DeviceLoss?
    }

    /// The slice's new events, in batch order.
    private(set) var rows: [Row] = []
    /// The App Links events' rollup groups, with how many of the rows each holds.
    private(set) var groups: [RollupKey: Int] = [:]
    /// The text and blob values of every row.
    private var values: BoundValues

    /// Redacts and packs the events of `batch` at `range` that `isNew` marks new (`isNew` is by position in
    /// `batch`).
    init(_ batch: [MeasurementEvent], range: Range<Int>, isNew: [Bool], redactor: Redactor, packer: EventPacker?) {
        rows.reserveCapacity(range.count)
        values = BoundValues(rows: range.count, bytesPerRow: 640)
        var extra: [(String, String)] = []
        var scratch = PackedFields.Scratch()
        for position in range where isNew[position] {
            append(
                redactor.redact(batch[position]), position: position, extra: &extra, packer: packer, scratch: &scratch)
        }
    }

    private mutating func append(
        _ event: MeasurementEvent, position: Int, extra: inout [(String, String)], packer: EventPacker?,
        scratch: inout PackedFields.Scratch
    ) {
        let first = values.count
        let (key, success) = EventColumns.pack(event, into: &values, extra: &extra, packer: packer, scratch: &scratch)
        var row = Row(position: position, values: first..<values.count, timestamp: event.timestamp, success: success)
        if event.name == DeviceLoss.eventName, let loss = DeviceLoss(event) {
            row.deviceLoss = loss
        } else {
            groups[key, default: 0] += 1
            if let group = LinkRollupKey.group(of: event) {
                row.link = group.key
                row.visitor = group.visitor
            }
        }
        rows.append(row)
    }

    /// Inserts every row with `statement` (Statements/insert_event.sql), in order, calling `inserted` after each
    /// with the row and its rowid; each row's values are bound in place (``BoundValues/run(_:values:)``).
    func insertAll(with statement: SQLiteStatement, _ inserted: (Row, Int64) -> Void) throws(SQLiteError) {
        for row in rows {
            try EventColumns.insertPacked(
                timestamp: row.timestamp, success: row.success, values: values, range: row.values, with: statement)
            inserted(row, statement.connection.lastInsertRowID)
        }
    }
}

/// The packing of a slice on a global queue (``EventWriter``'s redaction ahead).
final class PackJob: @unchecked Sendable {
    // @unchecked Sendable: `packed` is written once on the queue before `done` is signalled, and read only after
    // waiting for it.
    private let done = DispatchSemaphore(value: 0)
    private var packed: PackedSlice?

    private init() {}

    /// Starts packing the events of `batch` at `range` that `isNew` marks new, on a global queue.
    static func start(
        _ batch: [MeasurementEvent], range: Range<Int>, isNew: [Bool], redactor: Redactor, packer: EventPacker?
    ) -> PackJob {
        let job = PackJob()
        DispatchQueue.global().async {
            job.packed = PackedSlice(batch, range: range, isNew: isNew, redactor: redactor, packer: packer)
            job.done.signal()
        }
        return job
    }

    /// The packed slice, once the job is done (at once on later calls).
    func result() -> PackedSlice {
        done.wait()
        done.signal()
        return packed!
    }
}
