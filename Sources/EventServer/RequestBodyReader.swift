import CompressNIO
import Hummingbird
import NIOCore

/// Reads a POST body within serve.md's limits: 413 over 512 KiB as sent or 4 MiB decompressed, 400 for a
/// broken gzip stream, 415 for a content type or encoding the route does not take.
///
/// gzip goes through compress-nio (zlib under a `maxSize`): it inflates straight into a `ByteBuffer` and
/// stops at the limit, so a small "zip bomb" never allocates more than 4 MiB.
enum RequestBodyReader {
    /// The media types of NDJSON bodies (`/v1/events`).
    static let ndjsonTypes: Set<String> = ["application/x-ndjson", "application/ndjson", "application/jsonl"]
    /// The media types of Segment bodies; `text/plain` is what analytics.js sends to avoid a CORS preflight.
    static let segmentTypes: Set<String> = ["application/json", "text/plain"]

    /// The body of `request`, decompressed, when its media type is one of `accepted` (or absent).
    /// - Throws: ``EventServerError`` with 413, 415 or 400.
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
        } catch {
            throw EventServerError(.badRequest, "the body could not be read: \(error)")
        }
        guard encoding == "gzip" else { return body }
        return try gunzip(&body)
    }

    /// Inflates a gzip body to at most 4 MiB.
    ///
    /// compress-nio stops allocating at `maxSize` but may fill the rounded-up capacity of its last buffer, so
    /// the size is checked again: memory stays within twice the limit, and the answer is exact.
    static func gunzip(_ body: inout ByteBuffer) throws(EventServerError) -> ByteBuffer {
        let inflated: ByteBuffer
        do {
            inflated = try body.decompress(with: .gzip(), maxSize: IntakeLimits.maximumDecodedBytes)
        } catch let error as CompressNIOError where error == .bufferOverflow {
            throw decompressedTooLarge
        } catch {
            throw EventServerError(.badRequest, "the body is not a valid gzip stream")
        }
        guard inflated.readableBytes <= IntakeLimits.maximumDecodedBytes else { throw decompressedTooLarge }
        return inflated
    }

    private static var decompressedTooLarge: EventServerError {
        EventServerError(.contentTooLarge, "the body is larger than 4 MiB once decompressed")
    }

    private static var tooLarge: EventServerError {
        EventServerError(.contentTooLarge, "the body is larger than 512 KiB: send fewer events per request")
    }
}
