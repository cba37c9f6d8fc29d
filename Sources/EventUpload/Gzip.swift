import CZlib
import Foundation
import MeasurementEvents

#if canImport(CDeflate)
    import CDeflate
#endif

/// gzip: the one codec every collector accepts as `Content-Encoding: gzip`. Bodies are read with the system zlib,
/// which every platform ships; they are written with libdeflate on Linux and with zlib elsewhere.
package enum Gzip {
    /// One gzip member holding `bytes`, at the fastest level by default. At level 1, on realistic events (about 620
    /// bytes of NDJSON each, 500 a batch), zlib takes 2.3 µs an event for about 85 bytes; libdeflate, a whole-buffer
    /// compressor, takes 1.1 µs for about 80 (measured in C on the same batches), which is why the Linux build uses
    /// it: the push's gzip was a third of its CPU. The uploader's CPU is shared with the app, and its bytes are a
    /// few percent of what the event cost to make.
    package static func compress(_ bytes: [UInt8], level: Int32 = 1) -> Data {
        #if canImport(CDeflate)
            let compressor = Compressors.take(level: level)
            defer { Compressors.give(compressor, level: level) }
            let capacity = libdeflate_gzip_compress_bound(compressor.pointer, bytes.count)
        #else
            let capacity = czlib_gzip_bound(bytes.count)
        #endif
        // Written into memory of its own, not a zeroed `Data` of the bound (a tenth of the compressor's time),
        // then shrunk to what was written and handed to the `Data` without a copy.
        guard let output = malloc(capacity) else { fatalError("no memory for a gzip body of \(capacity) bytes") }
        let written = bytes.withUnsafeBufferPointer { input in
            #if canImport(CDeflate)
                libdeflate_gzip_compress(compressor.pointer, input.baseAddress, input.count, output, capacity)
            #else
                czlib_gzip(input.baseAddress, input.count, output.assumingMemoryBound(to: UInt8.self), capacity, level)
            #endif
        }
        // Compression fails only without memory, or when the bound is too small, which it is not: both are bugs.
        precondition(written > 0, "gzip could not compress \(bytes.count) bytes")
        let shrunk = realloc(output, written) ?? output
        return Data(bytesNoCopy: shrunk, count: written, deallocator: .free)
    }

    #if canImport(CDeflate)
        /// libdeflate's compressors, kept for the next batch: making one (its tables) costs as much as compressing
        /// 60 events.
        private enum Compressors {
            /// A compressor, used by one thread at a time: only while taken from the pool.
            struct Compressor: @unchecked Sendable {
                let pointer: OpaquePointer
            }

            /// Idle compressors by level; a few at most (one per batch being compressed at once).
            private static let pool = StateLock<[Int32: [Compressor]]>([:])

            static func take(level: Int32) -> Compressor {
                if let idle = pool.withLock({ $0[level]?.popLast() }) { return idle }
                guard let made = libdeflate_alloc_compressor(level) else {
                    fatalError("libdeflate has no level \(level) or no memory for a compressor")
                }
                return Compressor(pointer: made)
            }

            static func give(_ compressor: Compressor, level: Int32) {
                pool.withLock { $0[level, default: []].append(compressor) }
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
