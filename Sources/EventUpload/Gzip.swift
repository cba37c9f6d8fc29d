import CZlib
import Foundation

/// gzip through the system zlib: the one codec every collector accepts as `Content-Encoding: gzip`, and a
/// library every platform (Linux, iOS, macOS) ships, so the client needs no package of its own for it.
package enum Gzip {
    /// One gzip member holding `bytes`, at zlib's fastest level by default: on realistic events (about 620 bytes
    /// of NDJSON each, `alstats-bench upload`) it takes 0.44 of level 6's CPU (2.2 against 4.9 µs an event) for
    /// 1.55 times its bytes (87 against 56 an event); the uploader's CPU is shared with the app, and its bytes
    /// are a few percent of what the event cost to make.
    package static func compress(_ bytes: [UInt8], level: Int32 = 1) -> Data {
        let capacity = czlib_gzip_bound(bytes.count)
        // Written into memory of its own, not a zeroed `Data` of the bound (a tenth of the compressor's time),
        // then shrunk to what was written and handed to the `Data` without a copy.
        guard let output = malloc(capacity) else { fatalError("no memory for a gzip body of \(capacity) bytes") }
        let written = bytes.withUnsafeBufferPointer { input in
            czlib_gzip(input.baseAddress, input.count, output.assumingMemoryBound(to: UInt8.self), capacity, level)
        }
        // zlib fails only without memory, or when the bound is too small, which it is not: both are bugs.
        precondition(written > 0, "zlib could not compress \(bytes.count) bytes")
        let shrunk = realloc(output, written) ?? output
        return Data(bytesNoCopy: shrunk, count: written, deallocator: .free)
    }

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
