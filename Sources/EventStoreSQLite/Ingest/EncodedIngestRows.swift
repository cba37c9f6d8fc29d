import EventIngest
import EventStoreInterface
import MeasurementEvents

/// The events of one of the ingest reader's batches, encoded (``EncodedEvents``: redacted, mapped to their columns,
/// packed when the database is). A line read in place is encoded as it is appended, on the reader's thread, while
/// the line is there to read (``EncodedEvents/Builder/append(_:position:)-(FlatLine,_)``); a decoded event is
/// encoded when the batch is sealed: by the reader's thread when the queue is full, by the writer's otherwise
/// (``IngestPipeline``), so that the two threads share that work as their speeds demand.
struct EncodedIngestRows: IngestRows {
    /// The decoded events not yet encoded, each with its position in the batch.
    private var events: [(event: MeasurementEvent, position: Int32)] = []
    /// The rows encoded so far, made at the first line or at the seal.
    private var builder: EncodedEvents.Builder?
    /// The batch's events encoded, once sealed.
    private(set) var encoded: EncodedEvents?
    /// The events appended: the next one's position.
    private var appended: Int32 = 0
    private let redactor: Redactor
    /// The dictionary the writer packs with, read when the batch's first row is encoded: a batch begun before the
    /// database has one is written unpacked.
    private let packers: EventPacker.Slot
    private let capacity: Int

    init(redactor: Redactor, packers: EventPacker.Slot, capacity: Int) {
        self.redactor = redactor
        self.packers = packers
        self.capacity = capacity
    }

    var count: Int { encoded?.count ?? Int(appended) }

    /// Lines in the flat shape are read in place (``NDJSONCodec/scan(_:into:)``) and encoded from their bytes.
    var takesFlatLines: Bool { true }

    mutating func append(_ line: FlatLine) -> Bool {
        if builder == nil { builder = makeBuilder() }
        guard builder!.append(line, position: appended) else { return false }
        appended += 1
        return true
    }

    mutating func append(_ event: MeasurementEvent) {
        events.append((event, appended))
        appended += 1
    }

    mutating func seal() {
        guard encoded == nil else { return }
        var builder = self.builder ?? makeBuilder()
        self.builder = nil
        for (event, position) in events { builder.append(event, position: position) }
        events = []
        encoded = builder.finish()
    }

    private func makeBuilder() -> EncodedEvents.Builder {
        EncodedEvents.Builder(redactor: redactor, packer: packers.current, capacity: capacity)
    }
}
