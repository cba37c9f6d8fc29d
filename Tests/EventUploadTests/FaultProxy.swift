import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A proxy on a loopback socket in front of a collector that misbehaves on cue: each request takes the next
/// fault of its script (then `.pass` once the script is used up), and every fault is logged.
final class FaultProxy: Sendable {
    enum Fault: Sendable, Hashable {
        /// Forward and relay the answer.
        case pass
        /// Hang up before the request reaches the collector.
        case dropBeforeSending
        /// Forward, let the collector commit and answer, then hang up without relaying the answer.
        case dropAfterSending
        /// Wait, then forward.
        case delay(milliseconds: Int)
        /// Answer without forwarding.
        case answer(status: Int, retryAfter: String? = nil, body: String = "")
    }

    let port: UInt16
    private let listener: Int32
    private let upstream: UInt16
    private let state: Mutex<(script: [Fault], applied: [Fault])>

    /// Starts a proxy to 127.0.0.1:`upstream`.
    init(upstream: UInt16, script: [Fault]) throws {
        (listener, port) = try Wire.listen()
        self.upstream = upstream
        state = Mutex((script, []))
        Wire.serve(listener) { [self] request in answer(request) }
    }

    /// The base URL of the proxy.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The faults applied, one per request.
    var applied: [Fault] { state.withLock { $0.applied } }

    /// Stops accepting connections.
    func stop() { Wire.stopListening(listener) }

    private func answer(_ request: WireRequest) -> Data? {
        let fault = state.withLock { state -> Fault in
            let fault = state.script.isEmpty ? .pass : state.script.removeFirst()
            state.applied.append(fault)
            return fault
        }
        switch fault {
        case .dropBeforeSending:
            return nil
        case .answer(let status, let retryAfter, let body):
            let headers = retryAfter.map { ["Retry-After": $0] } ?? [:]
            return Wire.response(status: status, headers: headers, body: Data(body.utf8))
        case .delay(let milliseconds):
            usleep(useconds_t(milliseconds * 1000))
            return forward(request)
        case .pass:
            return forward(request)
        case .dropAfterSending:
            _ = forward(request)  // the collector committed and answered; the client never hears of it
            return nil
        }
    }

    /// The collector's whole answer to `request`, or `nil` when it cannot be reached.
    private func forward(_ request: WireRequest) -> Data? {
        guard let server = Wire.connect(port: upstream) else { return nil }
        defer { Wire.hangUp(server) }
        Wire.write(server, request.bytes)
        return Wire.readAll(server)
    }
}
