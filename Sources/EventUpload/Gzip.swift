import CZlib
import Foundation
import MeasurementEvents

#if ISAL && canImport(CIsal)
import CIsal
#endif

/// gzip: the one codec every collector accepts as `Content-Encoding: gzip`. Bodies are read with the system zlib,
/// which every platform ships; the uploader writes them with zlib, or with ISA-L on Linux in a build with the `ISAL`
/// package trait.
package enum Gzip {
    /// One gzip member holding `bytes`, written as fast as gzip goes: zlib's level 1, or ISA-L's on Linux with the
    /// `ISAL` trait. On realistic events (about 620 bytes of NDJSON each, 500 a batch, measured in C on the push's
    /// batches), ISA-L takes 0.65 µs an event for about 86 bytes, libdeflate's level 1 1.44 µs for 81, and zlib's
    /// level 1 about 3 µs for 85: the push's gzip was a quarter of its CPU with libdeflate. The uploader's CPU is
    /// shared with the app, and its bytes are a few percent of what the event cost to make.
    package static func compress(_ bytes: [UInt8]) -> Data {
        #if ISAL && canImport(CIsal)
        // A deflate stream grows incompressible input by 5 bytes in 64 KiB; gzip adds 18.
        var capacity = bytes.count + bytes.count / 64 + 1_024
        let buffer = Buffers.take()
        defer { Buffers.give(buffer) }
        while true {
            let body = withMemory(capacity: capacity) { output in
                bytes.withUnsafeBufferPointer { input in
                    Int(cisal_gzip(input.baseAddress, input.count, output, capacity, buffer.pointer))
                }
            }
            if let body { return body }
            // ISA-L fails only without room (or with more than 4 GiB, which no batch holds).
            precondition(capacity < bytes.count * 2 + 65_536, "gzip could not compress \(bytes.count) bytes")
            capacity *= 2
        }
        #else
        return compress(bytes, zlibLevel: 1)
        #endif
    }

    /// One gzip member holding `bytes`, written by the system zlib at `level` (1 to 9; 6 is gzip's default): what
    /// Apple platforms send, and the baseline the uploader's gzip is measured against.
    package static func compress(_ bytes: [UInt8], zlibLevel level: Int32) -> Data {
        let capacity = czlib_gzip_bound(bytes.count)
        let body = withMemory(capacity: capacity) { output in
            bytes.withUnsafeBufferPointer { input in
                Int(czlib_gzip(input.baseAddress, input.count, output, capacity, level))
            }
        }
        // zlib fails only without memory, or when the bound is too small, which it is not: both are bugs.
        guard let body else { preconditionFailure("gzip could not compress \(bytes.count) bytes") }
        return body
    }

    /// The bytes `write` writes into `capacity` bytes of memory of its own (not a zeroed `Data` of the bound: a tenth
    /// of the compressor's time), shrunk to their count and handed to the `Data` without a copy; `nil` when it wrote
    /// none.
    private static func withMemory(capacity: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) -> Data? {
        guard let output = malloc(capacity) else { fatalError("no memory for a gzip body of \(capacity) bytes") }
        let written = write(output.assumingMemoryBound(to: UInt8.self))
        guard written > 0 else {
            free(output)
            return nil
        }
        let shrunk = realloc(output, written) ?? output
        return Data(bytesNoCopy: shrunk, count: written, deallocator: .free)
    }

    #if ISAL && canImport(CIsal)
    /// ISA-L's working buffers (its hash table and tokens, 260 KiB each), kept for the next batch rather than
    /// allocated and faulted in for each.
    private enum Buffers {
        /// A buffer, used by one thread at a time: only while taken from the pool.
        struct Buffer: @unchecked Sendable {
            let pointer: UnsafeMutablePointer<UInt8>
        }

        /// Idle buffers; a few at most (one per batch being compressed at once).
        private static let pool = StateLock<[Buffer]>([])

        static func take() -> Buffer {
            if let idle = pool.withLock({ $0.popLast() }) { return idle }
            return Buffer(pointer: .allocate(capacity: cisal_level1_buffer_size))
        }

        static func give(_ buffer: Buffer) {
            pool.withLock { $0.append(buffer) }
        }
    }
    #endif

    /// Why a gzip body could not be read.
    package enum DecompressionFailure: Error, Sendable, Hashable {
        /// The bytes are not one whole gzip member.
        case broken
        /// The content is longer than the limit.
        case tooLarge
    }

    /// The content of one gzip member, at most `limit` bytes.
    package static func decompress(_ data: Data, limit: Int) throws(DecompressionFailure) -> Data {
        var output = Data(count: limit + 1)
        let written = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                czlib_gunzip(
                    input.bindMemory(to: UInt8.self).baseAddress, input.count,
                    out.bindMemory(to: UInt8.self).baseAddress, limit + 1)
            }
        }
        if written == -2 || written > limit { throw .tooLarge }
        guard written >= 0 else { throw .broken }
        output.count = written
        return output
    }
}
