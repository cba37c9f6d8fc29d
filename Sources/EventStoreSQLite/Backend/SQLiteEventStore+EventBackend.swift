import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// The SQLite store is the first ``EventBackend``: its synchronous methods answer the protocol's `async` ones
/// (they run on the caller's thread, under the store's lock, and never suspend).
extension SQLiteEventStore: EventBackend {
    /// The database file.
    public var location: String { path }

    /// Commits any batch the writer holds and lets SQLite refresh its query statistics (`PRAGMA optimize`).
    /// The file itself is closed when the last reference to the store goes.
    /// - Throws: ``StoreError`` when the held batch could not be committed.
    public func close() throws(StoreError) {
        try withStore { store throws(SQLiteError) in
            if store.writer.inTransaction { try store.writer.commit() }
            try? store.connection.execute("PRAGMA optimize")
        }
    }
}

extension EncodedEvents: PreparedEvents {}

extension SQLiteEventStore {
    /// Redacts and encodes `events` (``encode(_:)``), without the store's lock.
    public func prepare(_ events: [MeasurementEvent]) -> EncodedEvents {
        encode(events)
    }

    /// Encodes a request's decoded `events` and its `lines` read in place: the rows the lines' encoder made as they
    /// were read (``makeFlatLineEncoder()``), and each line kept as bytes from its bytes
    /// (``EncodedEvents/Builder/append(_:position:)-(FlatLine,_)``) unless its event must be decoded first.
    public func prepare(_ events: [MeasurementEvent], positions: [Int32], lines: ScannedLines) -> EncodedEvents {
        var builder =
            (lines.encoder as? LineEncoder)?.take()
            ?? EncodedEvents.Builder(
                redactor: redactor, packer: packers.current, capacity: events.count + lines.keptCount)
        for (event, position) in zip(events, positions) { builder.append(event, position: position) }
        var line = FlatLine()
        for index in 0..<lines.keptCount {
            let position = lines.positions[index]
            lines.withLine(index) { bytes in
                if lines.codec.scan(bytes, into: &line), builder.append(line, position: position) { return }
                // Read in place by the request already, so it decodes.
                if let event = try? lines.codec.decode(utf8: bytes) { builder.append(event, position: position) }
            }
        }
        return builder.finish()
    }

    /// ``writeBatches(encoded:losses:)`` of what ``prepare(_:)`` made.
    public func writePrepared(_ batches: [EncodedEvents], losses: [DropReason: Int]) throws(StoreError) -> [Int] {
        try writeBatches(encoded: batches, losses: losses)
    }
}

extension SQLiteEventStore: FlatLineEncoding {
    /// An encoder of one request's lines read in place into rows as they are read, with the store's redactor and
    /// packer (``prepare(_:positions:lines:)`` finishes its rows).
    package func makeFlatLineEncoder() -> any FlatLineEncoder {
        LineEncoder(builder: EncodedEvents.Builder(redactor: redactor, packer: packers.current, capacity: 32))
    }

    /// The rows of one request's lines as it reads them: a builder behind a reference, used by that request's task
    /// alone (`@unchecked Sendable`), moved out whole by ``take()``.
    final class LineEncoder: FlatLineEncoder, @unchecked Sendable {
        private var builder: EncodedEvents.Builder?

        init(builder: EncodedEvents.Builder) {
            self.builder = builder
        }

        func append(_ line: FlatLine, position: Int32) -> Bool {
            builder?.append(line, position: position) ?? false
        }

        /// The builder, left to the caller (the encoder takes no more lines).
        func take() -> EncodedEvents.Builder? {
            builder.take()
        }
    }
}
