import CZlib
import Hummingbird
import NIOCore

#if ISAL && canImport(CIsal)
import CIsal
#endif

/// Reads a POST body within the collector's limits: 413 over 512 KiB as sent or 4 MiB decompressed, 400 for a
/// broken gzip stream, 415 for a content type or encoding the route does not take (docs/http-api.md).
///
/// gzip goes through ISA-L on Linux (0.39 against zlib's 0.66 µs for an event of about 620 bytes, libdeflate's
/// 0.37, measured in C on the push's batches) and the system zlib elsewhere, into a buffer of a bounded size, so a small "zip bomb"
/// never writes more than 4 MiB (the buffer's reserved address space may be rounded up; what is touched is not).
/// A body is read whole or refused whole: a stream cut short (it ends before a member's trailer), or whose
/// trailer's CRC-32 or length does not match what it inflates to, is a 400 and nothing of it is stored, so no line
/// of it is acknowledged that was not read.
enum RequestBodyReader {
    /// The media types of NDJSON bodies (`/v1/events`).
    static let ndjsonTypes: Set<String> = ["application/x-ndjson", "application/ndjson", "application/jsonl"]
    /// The media types of Segment bodies; `text/plain` is what analytics.js sends to avoid a CORS preflight.
    static let segmentTypes: Set<String> = ["application/json", "text/plain"]

    /// The body of `request`, decompressed, when its media type is one of `accepted` (or absent).
    /// - Throws: ``EventServerError`` with 413, 415 or 400; 408 when `body_timeout` closed the connection.
    static func read(_ request: Request, accepting accepted: Set<String>) async throws(EventServerError) -> ByteBuffer {
        // The exact media type, as clients send it, is accepted without Foundation's trimming and lowercasing.
        if let contentType = request.headers[.contentType], !accepted.contains(contentType) {
            let media = contentType.split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard let media, accepted.contains(media) else {
                throw EventServerError(
                    .unsupportedMediaType,
                    "Content-Type \(contentType) is not accepted here: send \(accepted.sorted().joined(separator: " or "))"
                )
            }
        }
        let encoding = request.headers[.contentEncoding]?.trimmingCharacters(in: .whitespaces).lowercased()
        guard encoding == nil || encoding == "gzip" || encoding == "identity" else {
            throw EventServerError(
                .unsupportedMediaType, "Content-Encoding \(encoding ?? "") is not accepted: use gzip")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > IntakeLimits.maximumSentBytes {
            throw tooLarge
        }
        var body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: IntakeLimits.maximumSentBytes)
        } catch is NIOTooManyBytesError {
            throw tooLarge
        } catch let late as BodyTimedOut {
            throw EventServerError(.requestTimeout, late.message)
        } catch {
            throw EventServerError(.badRequest, "the body could not be read: \(error)")
        }
        guard encoding == "gzip" else { return body }
        return try gunzip(&body)
    }

    /// Inflates a gzip body (one member, or several one after another) to at most 4 MiB.
    ///
    /// The first try gets a buffer of 16 times the compressed size (NDJSON compresses about 7 to 1), at least
    /// 64 KiB; only a body that inflates past it is inflated again, into a buffer of the whole limit.
    /// - Throws: ``EventServerError``: 400 for a broken or cut stream, 413 past 4 MiB.
    static func gunzip(_ body: inout ByteBuffer) throws(EventServerError) -> ByteBuffer {
        let limit = IntakeLimits.maximumDecodedBytes
        var capacity = min(limit + 1, max(65_536, body.readableBytes * 16))
        while true {
            var inflated = ByteBufferAllocator().buffer(capacity: capacity)
            var result = -1
            body.withUnsafeReadableBytes { input in
                _ = inflated.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { output in
                    #if ISAL && canImport(CIsal)
                    result = cisal_gunzip(
                        input.bindMemory(to: UInt8.self).baseAddress, input.count,
                        output.bindMemory(to: UInt8.self).baseAddress, capacity)
                    #else
                    result = czlib_gunzip(
                        input.bindMemory(to: UInt8.self).baseAddress, input.count,
                        output.bindMemory(to: UInt8.self).baseAddress, capacity)
                    #endif
                    return max(result, 0)
                }
            }
            switch result {
            case 0...limit:
                return inflated
            case -2 where capacity <= limit:
                capacity = limit + 1
            case -2, limit...:
                throw decompressedTooLarge
            default:
                throw EventServerError(
                    .badRequest,
                    "the body is not a whole gzip stream (corrupt, cut short before its trailer, or a CRC-32 or "
                        + "length that does not match): nothing of it was stored; send the whole body again")
            }
        }
    }

    private static var decompressedTooLarge: EventServerError {
        EventServerError(.contentTooLarge, "the body is larger than 4 MiB once decompressed")
    }

    private static var tooLarge: EventServerError {
        EventServerError(.contentTooLarge, "the body is larger than 512 KiB: send fewer events per request")
    }
}
