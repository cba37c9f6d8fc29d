#if Server

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A proxy on a loopback socket in front of a collector that misbehaves on cue: each request takes the next
/// fault of its script (then `.pass` once the script is used up), and every request is recorded with its fault,
/// its declared `Content-Length` and the body bytes that actually arrived.
///
/// By default each connection carries one request and is closed after it. With
/// ``Connections/keptOpen`` the proxy keeps a client's connection open across requests as an HTTP/1.1 server
/// does, so a fault hits a connection the client had pooled and reuses. With `resentBodiesPass`, a request whose
/// body the proxy has seen before (a client's retry) passes without taking a fault: each batch meets at most one
/// fault, whatever order concurrent requests arrive in.
final class FaultProxy: Sendable {
    enum Fault: Sendable, Hashable {
        /// Forward and relay the answer.
        case pass
        /// Read the whole request, then hang up before it reaches the collector.
        case dropBeforeSending
        /// Forward, let the collector commit and answer, then hang up without relaying the answer.
        case dropAfterSending
        /// Read the head and half the body, then reset the connection (RST): the collector never sees it.
        case resetMidBody
        /// Wait, then forward.
        case delay(milliseconds: Int)
        /// Answer without forwarding.
        case answer(status: Int, retryAfter: String? = nil, body: String = "")
        /// Drop this request and every request that arrives within `duration` of it, as ``dropBeforeSending``
        /// does (the later ones recorded as that); the script goes on after.
        case unreachable(for: Duration)
    }

    /// What the proxy does with a client's connection after answering a request.
    enum Connections: Sendable {
        /// Closes it: one request per connection.
        case closedAfterEachRequest
        /// Keeps it open for the client's next request, as an HTTP/1.1 server does.
        case keptOpen
    }

    /// One request as the proxy saw it.
    struct SeenRequest: Sendable, Hashable {
        /// What the proxy did with it.
        var fault: Fault
        /// Its `Content-Length`.
        var declaredLength: Int
        /// The body bytes read before the proxy stopped reading: all of them, unless the client fell quiet for
        /// ``FaultProxy/quiet`` first or the fault cut the body (``Fault/resetMidBody``).
        var receivedLength: Int
        /// Whether its connection had carried a request before (one the client pooled and reused).
        var onReusedConnection: Bool
        /// Whether its body began as the body of an earlier request did (its first half is the same): a retry.
        var resendsBody: Bool

        /// Whether fewer body bytes arrived than it declared.
        var isShort: Bool { receivedLength < declaredLength }
    }

    /// How long a request's head or body may pause before the proxy takes it as all the client will send.
    static let quiet = Duration.seconds(2)

    let port: UInt16
    private let listener: Int32
    private let upstream: UInt16
    private let connections: Connections
    private let resentBodiesPass: Bool
    private let state: Mutex<State>

    private struct State {
        var script: [Fault]
        var applied: [Fault] = []
        var seen: [SeenRequest] = []
        /// The end of an ``Fault/unreachable(for:)`` outage.
        var outageEnd: ContinuousClock.Instant?
        /// The first halves of the bodies seen, to know a retry by.
        var bodies: Set<Data> = []
        /// The client connections not yet closed, for `stop()` to shut down.
        var open: Set<Int32> = []
    }

    /// Starts a proxy to 127.0.0.1:`upstream`.
    init(
        upstream: UInt16, script: [Fault], connections: Connections = .closedAfterEachRequest,
        resentBodiesPass: Bool = false
    ) throws {
        (listener, port) = try Wire.listen()
        self.upstream = upstream
        self.connections = connections
        self.resentBodiesPass = resentBodiesPass
        state = Mutex(State(script: script))
        Wire.serve(listener) { [self] client in serve(client) }
    }

    /// The base URL of the proxy.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The faults applied, one per request, in the order the requests' heads arrived.
    var applied: [Fault] { state.withLock { $0.applied } }

    /// Every request, in the order the proxy finished reading them.
    var seen: [SeenRequest] { state.withLock { $0.seen } }

    /// Stops accepting connections and shuts down those still open.
    func stop() {
        Wire.stopListening(listener)
        state.withLock { state in
            for client in state.open { shutdown(client, Int32(SHUT_RDWR)) }
        }
    }

    /// Serves the requests of one client connection until it closes, a fault ends it, or one request is answered
    /// (``Connections/closedAfterEachRequest``).
    private func serve(_ client: Int32) {
        state.withLock { _ = $0.open.insert(client) }
        var resets = false
        defer {
            // Closed under the lock, so that `stop()` never shuts down a descriptor number already reused.
            state.withLock { state in
                state.open.remove(client)
                if resets { Wire.reset(client) } else { Wire.hangUp(client) }
            }
        }
        var served = 0
        while var request = Wire.readHead(client, quiet: FaultProxy.quiet) {
            // The first half of the body tells a retry; a reset cuts the body there.
            let half = request.declaredLength / 2
            request.body = Wire.readBody(client, count: half, quiet: FaultProxy.quiet)
            let (fault, resent) = nextFault(firstHalf: request.body, of: request.declaredLength)
            if fault != .resetMidBody, request.body.count == half {
                request.body += Wire.readBody(client, count: request.declaredLength - half, quiet: FaultProxy.quiet)
            }
            let seen = SeenRequest(
                fault: fault, declaredLength: request.declaredLength, receivedLength: request.body.count,
                onReusedConnection: served > 0, resendsBody: resent)
            state.withLock { $0.seen.append(seen) }
            served += 1
            if fault == .resetMidBody {
                resets = true
                return
            }
            // A body cut short cannot be forwarded: hang up, as a server would once it gave up on the rest.
            guard !seen.isShort, let answer = answer(request, fault), Wire.write(client, answer) else { return }
            if connections == .closedAfterEachRequest { return }
        }
    }

    /// The fault for a request whose body begins with `firstHalf` (of `length` bytes), and whether that body was
    /// seen before.
    private func nextFault(firstHalf: Data, of length: Int) -> (Fault, resent: Bool) {
        state.withLock { state in
            let whole = length > 0 && firstHalf.count == length / 2
            let resent = whole && !state.bodies.insert(Data("\(length) ".utf8) + firstHalf).inserted
            let now = ContinuousClock.now
            var fault = Fault.dropBeforeSending
            if state.outageEnd.map({ now >= $0 }) ?? true {
                if resent, resentBodiesPass {
                    fault = .pass
                } else {
                    fault = state.script.isEmpty ? .pass : state.script.removeFirst()
                }
                if case .unreachable(let duration) = fault { state.outageEnd = now + duration }
            }
            state.applied.append(fault)
            return (fault, resent)
        }
    }

    /// What to write back to the client for `request` under `fault`; `nil` to hang up instead.
    private func answer(_ request: WireRequest, _ fault: Fault) -> Data? {
        let keepOpen = connections == .keptOpen
        switch fault {
        case .dropBeforeSending, .resetMidBody, .unreachable:
            return nil
        case .answer(let status, let retryAfter, let body):
            let headers = retryAfter.map { ["Retry-After": $0] } ?? [:]
            return Wire.response(status: status, headers: headers, body: Data(body.utf8), keepAlive: keepOpen)
        case .delay(let milliseconds):
            usleep(useconds_t(milliseconds * 1000))
            return relay(forward(request))
        case .pass:
            return relay(forward(request))
        case .dropAfterSending:
            _ = forward(request)  // the collector committed and answered; the client never hears of it
            return nil
        }
    }

    /// The collector's answer as the client gets it: as it came for a connection closed after it, else framed
    /// for a connection that stays open (`nil`, a hang-up, for an answer that cannot be).
    private func relay(_ answer: Data?) -> Data? {
        guard let answer else { return nil }
        return connections == .keptOpen ? Wire.keptAlive(answer) : answer
    }

    /// The collector's whole answer to `request`, or `nil` when it cannot be reached.
    private func forward(_ request: WireRequest) -> Data? {
        guard let server = Wire.connect(port: upstream) else { return nil }
        defer { Wire.hangUp(server) }
        Wire.write(server, request.bytes)
        return Wire.readAll(server)
    }
}

#endif
