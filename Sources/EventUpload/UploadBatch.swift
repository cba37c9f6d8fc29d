import MeasurementEvents

/// Events on their way to the collector: their NDJSON lines and the keys their source acknowledges them by
/// (outbox seqs, or `events` rowids for a push), both oldest first.
///
/// The lines are kept as the request body itself (each line and its newline, one after another), so that a batch
/// is compressed from the bytes it was read into: a `String` per line, joined again into the body, cost a push
/// about 0.4 µs an event.
package struct UploadBatch: Sendable, Hashable {
    /// One key per line, ascending.
    package var keys: [Int64]
    /// The request body before compression: the lines, each ended by a newline.
    package private(set) var body: [UInt8] = []
    /// The offset in ``body`` just past each line's newline.
    private var ends: [Int] = []

    package init(keys: [Int64] = [], lines: [String] = []) {
        self.keys = keys
        for line in lines { appendLine(line.utf8) }
    }

    /// The number of events.
    package var count: Int { ends.count }

    /// One NDJSON line per event, without newline.
    package var lines: [String] {
        ends.indices.map { String(decoding: body[range(ofLine: $0)], as: UTF8.self) }
    }

    /// The bytes of line `index` in ``body``, without its newline.
    package func range(ofLine index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1])..<(ends[index] - 1)
    }

    /// The first and second half, for a batch the collector found too large.
    package var halves: (UploadBatch, UploadBatch) {
        let middle = count / 2
        let split = middle == 0 ? 0 : ends[middle - 1]
        var first = UploadBatch(keys: Array(keys[..<middle]))
        first.body = Array(body[..<split])
        first.ends = Array(ends[..<middle])
        var second = UploadBatch(keys: Array(keys[middle...]))
        second.body = Array(body[split...])
        second.ends = ends[middle...].map { $0 - split }
        return (first, second)
    }

    /// Adds the line of `key` when the batch stays within `maximumBytes` (its first line always fits).
    /// - Returns: whether it was added.
    package mutating func append(_ line: String, key: Int64, bytes: inout Int, maximumBytes: Int) -> Bool {
        append(line.utf8, key: key, bytes: &bytes, maximumBytes: maximumBytes)
    }

    /// ``append(_:key:bytes:maximumBytes:)`` of a line's UTF-8 bytes (valid UTF-8, without newline).
    /// - Returns: whether it was added.
    package mutating func append(
        _ line: some Collection<UInt8>, key: Int64, bytes: inout Int, maximumBytes: Int
    ) -> Bool {
        let size = line.count + 1
        guard count == 0 || bytes + size <= maximumBytes else { return false }
        keys.append(key)
        appendLine(line)
        bytes += size
        return true
    }

    /// Reserves room for `lines` lines of `bytes` bytes in all (newlines included), so that a batch being read
    /// is not copied as it grows.
    package mutating func reserveCapacity(lines: Int, bytes: Int) {
        keys.reserveCapacity(lines)
        ends.reserveCapacity(lines)
        body.reserveCapacity(bytes)
    }

    private mutating func appendLine(_ line: some Collection<UInt8>) {
        body.append(contentsOf: line)
        body.append(0x0A)
        ends.append(body.count)
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
