import Foundation
import MeasurementEvents
import Synchronization
import TestSupport

@testable import EventStoreInterface
@testable import EventUpload

/// Virtual time: `sleep` returns at once and moves `now` forward, recording every wait.
final class ManualUploadClock: UploadClock {
    private let state = StateLock<(now: Date, sleeps: [Duration])>((Date(timeIntervalSince1970: 1_763_683_200), []))

    func now() -> Date { state.withLock { $0.now } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(duration)
            state.now += duration.inSeconds
        }
    }

    /// Every wait so far.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }
}

/// The same number every time.
struct FixedRandom: UploadRandomSource {
    var unit: Double
    func nextUnit() -> Double { unit }
}

/// A request as a transport saw it.
struct SentRequest: Sendable {
    var lines: [String]
    var writeKey: String
}

/// Answers each request with the next scripted reply (the last one repeats), recording the decompressed
/// lines; `.accept` answers with the receipt of a collector that stores every line (ids deduplicated).
final class ScriptedTransport: UploadTransport {
    enum Reply: Sendable {
        case accept
        case status(Int, retryAfter: String? = nil, body: String = "")
        case networkError
        /// Receipt rejecting the lines (1-based) with the reason; the others accepted.
        case reject([Int], reason: String)
        /// 413 for more than this many lines, else accept.
        case limit(lines: Int)
        /// A 200 receipt that accounts for only the first `lines` lines (`"lines": N`), storing just those: the
        /// answer to a body the collector read cut short.
        case partial(lines: Int)
    }

    private let state = StateLock<(replies: [Reply], requests: [SentRequest], stored: [String: Int])>(([], [], [:]))

    init(_ replies: [Reply]) {
        state.withLock { $0.replies = replies }
    }

    /// Every request, in order.
    var requests: [SentRequest] { state.withLock { $0.requests } }
    /// Stored ids and how many times each was sent and acknowledged.
    var stored: [String: Int] { state.withLock { $0.stored } }

    func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws -> UploadResponse {
        let text = String(decoding: try Gzip.decompress(body, limit: 4 << 20), as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        let reply = state.withLock { state -> Reply in
            state.requests.append(SentRequest(lines: lines, writeKey: writeKey))
            return state.replies.count > 1 ? state.replies.removeFirst() : state.replies.first ?? .accept
        }
        switch reply {
        case .accept:
            return receipt(for: lines, rejecting: [], reason: "")
        case .status(let status, let retryAfter, let body):
            return UploadResponse(status: status, retryAfter: retryAfter, body: Data(body.utf8))
        case .networkError:
            throw URLError(.networkConnectionLost)
        case .reject(let numbers, let reason):
            return receipt(for: lines, rejecting: Set(numbers), reason: reason)
        case .limit(let most):
            guard lines.count <= most else { return UploadResponse(status: 413) }
            return receipt(for: lines, rejecting: [], reason: "")
        case .partial(let read):
            let answer = receipt(for: Array(lines.prefix(read)), rejecting: [], reason: "")
            let text = String(decoding: answer.body, as: UTF8.self)
            return UploadResponse(status: 200, body: Data(("{\"lines\":\(read)," + text.dropFirst()).utf8))
        }
    }

    private func receipt(for lines: [String], rejecting: Set<Int>, reason: String) -> UploadResponse {
        var accepted = 0
        var duplicates = 0
        var errors: [String] = []
        state.withLock { state in
            for (offset, line) in lines.enumerated() {
                if rejecting.contains(offset + 1) {
                    errors.append("{\"line\":\(offset + 1),\"reason\":\"\(reason)\"}")
                    continue
                }
                let id = ScriptedTransport.id(of: line)
                if state.stored[id, default: 0] == 0 { accepted += 1 } else { duplicates += 1 }
                state.stored[id, default: 0] += 1
            }
        }
        let body =
            "{\"accepted\":\(accepted),\"duplicates\":\(duplicates),\"rejected\":\(errors.count),"
            + "\"errors\":[\(errors.joined(separator: ","))]}"
        let status = accepted + duplicates > 0 || lines.isEmpty ? 200 : 400
        return UploadResponse(status: status, body: Data(body.utf8))
    }

    /// The id of an NDJSON line.
    static func id(of line: String) -> String {
        (try? NDJSONCodec().decode(line).id.description) ?? ""
    }
}

/// A sink on an outbox in `folder`, with a manual clock and a scripted transport.
func makeSink(
    in folder: TemporaryFolder, transport: ScriptedTransport, clock: ManualUploadClock = ManualUploadClock(),
    maximumOutboxBytes: Int = 64 << 20, policy: UploadPolicy = UploadPolicy(), writeKey: String = "key-1"
) throws -> HTTPEventSink {
    try HTTPEventSink(
        HTTPEventSink.Configuration(
            collector: URL(string: "http://127.0.0.1:9")!, writeKey: writeKey, outboxPath: folder.file("outbox.sqlite"),
            maximumOutboxBytes: maximumOutboxBytes, policy: policy),
        transport: transport, clock: clock, random: FixedRandom(unit: 0.5))
}
