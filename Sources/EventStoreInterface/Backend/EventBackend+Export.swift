import MeasurementEvents

extension EventBackend {
    /// Writes the stored events with `since <= ts < until` as NDJSON lines (with ids), in export order, to
    /// `write` in chunks of about 64 KiB of complete lines: what `alstats export` prints on any backend.
    ///
    /// ```swift
    /// try await backend.exportNDJSON(since: .min, until: .max) { chunk in try output.write(contentsOf: chunk) }
    /// ```
    /// - Returns: how many events were written.
    /// - Throws: ``StoreError`` when the database cannot be read, or what `write` threw.
    @discardableResult
    public func exportNDJSON(since: Int64, until: Int64, to write: ([UInt8]) throws -> Void) async throws -> Int {
        var chunks = NDJSONChunks()
        try await forEachEvent(since: since, until: until) { event in try chunks.append(event, flushingTo: write) }
        try chunks.finish(flushingTo: write)
        return chunks.count
    }
}
