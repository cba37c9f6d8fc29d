import EventStoreInterface
import MeasurementEvents

extension SQLiteEventStore {
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
        var chunks = NDJSONChunks()
        try forEachEvent(since: since, until: until) { event in try chunks.append(event, flushingTo: write) }
        try chunks.finish(flushingTo: write)
        return chunks.count
    }
}
