import MeasurementEvents

extension EventStore {
    /// Writes the stored events with `since <= ts < until` as NDJSON lines (with ids), in time order.
    ///
    /// `write` receives chunks of about 64 KiB of complete lines, each ending with a newline.
    /// ```swift
    /// try store.export { chunk in FileHandle.standardOutput.write(Data(chunk)) }
    /// ```
    /// - Returns: how many events were written.
    @discardableResult
    public func export(
        since: Int64 = .min, until: Int64 = .max, to write: ([UInt8]) throws -> Void
    ) throws -> Int {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16 + 4_096)
        var count = 0
        try forEachEvent(since: since, until: until) { event in
            buffer.append(contentsOf: NDJSONCodec.line(for: event).utf8)
            buffer.append(0x0A)
            count += 1
            if buffer.count >= 1 << 16 {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if !buffer.isEmpty { try write(buffer) }
        return count
    }
}
