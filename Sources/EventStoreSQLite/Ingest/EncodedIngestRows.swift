import EventIngest
import EventStoreInterface
import MeasurementEvents

/// The events of one of the ingest reader's batches, encoded (``EncodedEvents``: redacted, mapped to their columns,
/// packed when the database is) when the batch is sealed: by the reader's thread when the queue is full, by the
/// writer's otherwise (``IngestPipeline``), so that the two threads share the work as their speeds demand.
struct EncodedIngestRows: IngestRows {
    private var events: [MeasurementEvent] = []
    /// The batch's events encoded, once sealed.
    private(set) var encoded: EncodedEvents?
    private let redactor: Redactor
    /// The dictionary the writer packs with, read when the batch is sealed: a batch sealed before the database
    /// has one is written unpacked.
    private let packers: EventPacker.Slot

    init(redactor: Redactor, packers: EventPacker.Slot, capacity: Int) {
        self.redactor = redactor
        self.packers = packers
        events.reserveCapacity(capacity)
    }

    var count: Int { encoded?.count ?? events.count }

    /// Lines are decoded (``NDJSONCodec/decode(utf8:truncatedValues:)``), not read in place.
    var takesFlatLines: Bool { false }

    mutating func append(_ line: FlatLine) -> Bool { false }

    mutating func append(_ event: MeasurementEvent) {
        events.append(event)
    }

    mutating func seal() {
        guard encoded == nil else { return }
        encoded = EncodedEvents(events, redactor: redactor, packer: packers.current)
        events = []
    }
}
