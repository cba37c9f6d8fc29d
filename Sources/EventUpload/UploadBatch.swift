import MeasurementEvents

/// Events on their way to the collector: their NDJSON lines and the keys their source acknowledges them by
/// (outbox seqs, or `events` rowids for a push), both oldest first.
package struct UploadBatch: Sendable, Hashable {
    /// One key per line, ascending.
    package var keys: [Int64]
    /// One NDJSON line per event, without newline.
    package var lines: [String]

    package init(keys: [Int64] = [], lines: [String] = []) {
        self.keys = keys
        self.lines = lines
    }

    /// The number of events.
    package var count: Int { lines.count }

    /// The request body before compression: the lines, each ended by a newline.
    package var body: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
        for line in lines {
            bytes.append(contentsOf: line.utf8)
            bytes.append(0x0A)
        }
        return bytes
    }

    /// The first and second half, for a batch the collector found too large.
    package var halves: (UploadBatch, UploadBatch) {
        let middle = lines.count / 2
        return (
            UploadBatch(keys: Array(keys[..<middle]), lines: Array(lines[..<middle])),
            UploadBatch(keys: Array(keys[middle...]), lines: Array(lines[middle...]))
        )
    }

    /// Adds the line of `key` when the batch stays within `maximumBytes` (its first line always fits).
    /// - Returns: whether it was added.
    package mutating func append(_ line: String, key: Int64, bytes: inout Int, maximumBytes: Int) -> Bool {
        let size = line.utf8.count + 1
        guard lines.isEmpty || bytes + size <= maximumBytes else { return false }
        keys.append(key)
        lines.append(line)
        bytes += size
        return true
    }
}

/// Where batches come from and where receipts go: the sink's outbox, or a database being pushed.
package protocol UploadSource: AnyObject, Sendable {
    /// The oldest events not yet answered by a receipt that come after `previous` (from the oldest when `nil`),
    /// at most `maximumEvents` and `maximumBytes` of lines (but at least one event); `nil` when there are none.
    /// The uploader reads the batch after the one in flight while that one is being sent.
    func nextBatch(after previous: UploadBatch?, maximumEvents: Int, maximumBytes: Int) throws(UploadError)
        -> UploadBatch?

    /// Marks the batch's events done (acknowledged, or rejected and counted under `rejected`), durably.
    /// `unseen`: the collector never stored or counted the rejected events (the uploader dropped them without
    /// a receipt), so a source that reports the device's losses to the collector reports these too.
    func finish(_ batch: UploadBatch, rejected: [DropReason: Int], unseen: Bool) throws(UploadError)

    /// How many events are waiting.
    func pendingCount() throws(UploadError) -> Int

    /// Called when the uploader stops sending (the source is empty, or an error stopped it): no batch read
    /// since the last call is in flight any more.
    func endUploading()
}
