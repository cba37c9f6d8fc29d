#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads newline-separated lines from a file descriptor in large chunks, with bounded memory: a line
/// longer than the limit is reported as too long and skipped, never buffered whole.
package struct LineReader {
    /// What one line is.
    package enum Line {
        /// The line's bytes, without `\n` (or `\r\n`); valid only during the callback.
        case text(UnsafeBufferPointer<UInt8>)
        /// A line longer than the limit (its bytes were skipped).
        case tooLong
    }

    package let descriptor: Int32
    package let maximumLineBytes: Int
    package let chunkBytes: Int

    package init(descriptor: Int32, maximumLineBytes: Int = 16 << 20, chunkBytes: Int = 1 << 20) {
        self.descriptor = descriptor
        self.maximumLineBytes = maximumLineBytes
        self.chunkBytes = min(chunkBytes, maximumLineBytes)
    }

    /// Calls `body` with each line in order; `bytesRead` is the running total read so far.
    /// - Throws: `errno` of a failed read, as ``IngestError``, or what `body` throws.
    package func forEachLine(_ body: (Line, _ bytesRead: Int) throws -> Void) throws {
        var capacity = chunkBytes
        var storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { storage.deallocate() }
        var start = 0
        var end = 0
        var total = 0
        var discarding = false
        while true {
            if end == capacity {
                if start > 0 {
                    (storage + 0).update(from: storage + start, count: end - start)
                    end -= start
                    start = 0
                } else if capacity < maximumLineBytes {
                    let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: min(capacity * 2, maximumLineBytes))
                    larger.update(from: storage, count: end)
                    storage.deallocate()
                    storage = larger
                    capacity = min(capacity * 2, maximumLineBytes)
                } else {
                    // A line over the limit: report it once and skip to its end.
                    if !discarding { try body(.tooLong, total) }
                    discarding = true
                    start = 0
                    end = 0
                }
            }
            let count = read(descriptor, storage + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw IngestError(.unreadable, file: "", reason: String(cString: strerror(errno)))
            }
            if count == 0 {
                if start < end, !discarding {
                    try body(.text(LineReader.trimmed(storage + start, end - start)), total)
                }
                return
            }
            total += count
            var scan = end
            end += count
            while let newline = LineReader.find(storage, from: scan, to: end) {
                if discarding {
                    discarding = false
                } else {
                    try body(.text(LineReader.trimmed(storage + start, newline - start)), total)
                }
                start = newline + 1
                scan = start
            }
            if discarding {
                start = 0
                end = 0
            }
        }
    }

    private static func find(_ storage: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int? {
        guard from < to, let found = memchr(storage + from, 0x0A, to - from) else { return nil }
        return storage.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private static func trimmed(_ start: UnsafeMutablePointer<UInt8>, _ count: Int) -> UnsafeBufferPointer<UInt8> {
        var count = count
        if count > 0, start[count - 1] == 0x0D { count -= 1 }
        return UnsafeBufferPointer(start: start, count: count)
    }
}
