import EventStore
import Foundation
import MeasurementEvents
import Synchronization

@testable import EventUpload

/// A minimal collector of the tests' own: `POST /v1/events` as shared/spec/serve.md specifies it (HTTP Basic
/// write key, gzip, 413 over 512 KiB as sent or 4 MiB inflated, one receipt per request answered after the
/// events are committed to a real EventStore, ids deduplicated for all time). Stands in for `alstats serve`.
final class LoopbackCollector: Sendable {
    let port: UInt16
    let store: EventStore
    private let listener: Int32
    private let writeKey: String
    /// Serialises requests as the real collector's single writer does.
    private let writing = Mutex<(requests: Int, duplicates: Int)>((0, 0))

    init(databasePath: String, writeKey: String) throws {
        store = try EventStore(path: databasePath)
        self.writeKey = writeKey
        (listener, port) = try Wire.listen()
        Wire.serve(listener) { [self] request in answer(request) }
    }

    /// Requests answered.
    var requests: Int { writing.withLock { $0.requests } }
    /// Events acknowledged as duplicates (sent again after an answer was lost).
    var duplicates: Int { writing.withLock { $0.duplicates } }

    /// Stops accepting connections.
    func stop() { Wire.stopListening(listener) }

    private func answer(_ request: WireRequest) -> Data {
        guard request.method == "POST", request.path == "/v1/events" else { return Wire.response(status: 404) }
        let expected = "Basic " + Data((writeKey + ":").utf8).base64EncodedString()
        guard request.headers["authorization"] == expected else {
            return Wire.response(status: 401, headers: ["WWW-Authenticate": "Basic realm=\"alstats\""])
        }
        guard request.body.count <= 512 * 1024 else { return Wire.response(status: 413) }
        var body = request.body
        if request.headers["content-encoding"] == "gzip" {
            do {
                body = try Gzip.decompress(request.body, limit: 4 << 20)
            } catch .tooLarge {
                return Wire.response(status: 413)
            } catch {
                return Wire.response(status: 400, body: Data("broken gzip".utf8))
            }
        }
        return receipt(String(decoding: body, as: UTF8.self))
    }

    private func receipt(_ text: String) -> Data {
        var events: [MeasurementEvent] = []
        var errors: [String] = []
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            var reason = "too_large"
            if line.utf8.count <= 32 * 1024 {
                do {
                    events.append(try NDJSONCodec().decode(String(line)))
                    continue
                } catch {
                    reason = error.reason
                }
            }
            var item = "{\"line\":\(offset + 1),\"reason\":"
            JSONValue.writeString(reason, to: &item)
            errors.append(item + "}")
        }
        let inserted = writing.withLock { counts -> Int? in
            counts.requests += 1
            guard let inserted = try? store.write(events) else { return nil }
            counts.duplicates += events.count - inserted
            return inserted
        }
        guard let inserted else { return Wire.response(status: 503, headers: ["Retry-After": "1"]) }
        let body =
            "{\"accepted\":\(inserted),\"duplicates\":\(events.count - inserted),\"rejected\":\(errors.count),"
            + "\"errors\":[\(errors.joined(separator: ","))]}"
        let status = events.isEmpty && !errors.isEmpty ? 400 : 200
        return Wire.response(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }
}
