/// NDJSON lines (with ids) of events, handed to a writer in chunks of about 64 KiB of complete lines, each
/// ending with a newline: the buffer of the SQLite store's `export(since:until:to:)` and of the store interface's
/// `EventBackend.exportNDJSON(since:until:to:)`.
package struct NDJSONChunks {
    /// How many events were appended.
    package private(set) var count = 0
    private var buffer: [UInt8] = []

    package init() {
        buffer.reserveCapacity(1 << 16 + 4_096)
    }

    /// Adds the line of `event`, handing the buffer to `write` once it holds 64 KiB.
    package mutating func append(_ event: MeasurementEvent, flushingTo write: ([UInt8]) throws -> Void) rethrows {
        NDJSONCodec.appendLine(for: event, to: &buffer)
        buffer.append(0x0A)
        count += 1
        if buffer.count >= 1 << 16 {
            try write(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Hands what is left to `write`.
    package mutating func finish(flushingTo write: ([UInt8]) throws -> Void) rethrows {
        if !buffer.isEmpty { try write(buffer) }
        buffer.removeAll()
    }
}
