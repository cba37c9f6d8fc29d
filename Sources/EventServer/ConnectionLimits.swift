import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Hummingbird's HTTP/1.1 channel with the connection limits of docs/collector.md ("Limits"): at most
/// `max_connections` open at once, and the time a request has for its head and its body.
///
/// - Idle keep-alive connections are Hummingbird's to close (`HTTP1Channel.Configuration.idleTimeout`,
///   its `HTTPConnectionStateHandler`).
/// - A connection past `max_connections` is accepted and closed at once, before any handler is added, and
///   counted. Hummingbird's own cap (`availableConnectionsDelegate`) stops accepting instead, which leaves new
///   clients waiting in the listen backlog, connected but unanswered, and shows nothing in `/metrics`.
/// - The head and body deadlines are ``RequestDeadlines``, each from the start of its phase whatever arrives in
///   between: NIO's `IdleStateHandler` is reset by every read, so a byte a second keeps it quiet; Hummingbird's
///   idle timeout is one duration for a head and an idle connection alike, and every body part resets it. They
///   keep one task on the connection's event loop at most, rescheduled lazily (a connection of fast requests
///   reschedules it about once per `header_timeout`).
struct LimitedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ServerLimits
    let gate: ConnectionGate
    let metrics: ServerMetrics

    /// Hummingbird's channel for `responder`, with `limits`' idle timeout.
    init(
        responder: @escaping HTTPChannelHandler.Responder, limits: ServerLimits, gate: ConnectionGate,
        metrics: ServerMetrics
    ) {
        http1 = HTTP1Channel(
            responder: responder, configuration: .init(idleTimeout: TimeAmount(limits.idleTimeout)))
        self.limits = limits
        self.gate = gate
        self.metrics = metrics
    }

    /// The server builder of an application with these limits.
    static func builder(limits: ServerLimits, gate: ConnectionGate, metrics: ServerMetrics) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            LimitedHTTP1Channel(responder: responder, limits: limits, gate: gate, metrics: metrics)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard gate.admit(channel) else {
            return channel.eventLoop.makeFailedFuture(ConnectionRefused())
        }
        let deadlines = RequestDeadlines(
            header: TimeAmount(limits.headerTimeout), body: TimeAmount(limits.bodyTimeout), metrics: metrics)
        do {
            try channel.pipeline.syncOperations.addHandler(RequestBytesHandler(deadlines), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return http1.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            // Just after NIO's HTTP/1 decoder: it sees the request's parts as they are decoded, and the answer's.
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(RequestPartsHandler(deadlines), position: .after(decoder))
            return value
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }

    /// A connection past `max_connections`: closed by ``ConnectionGate/admit(_:)``.
    struct ConnectionRefused: Error {}
}

/// The count of open connections against `max_connections`, shared by every event loop.
final class ConnectionGate: Sendable {
    private let open = Atomic<Int>(0)
    private let maximum: Int
    private let metrics: ServerMetrics

    init(maximum: Int, metrics: ServerMetrics) {
        self.maximum = maximum
        self.metrics = metrics
    }

    /// Counts `channel` as open until it closes; past the maximum, closes it at once and says false.
    func admit(_ channel: any Channel) -> Bool {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        channel.closeFuture.whenComplete { [self] _ in
            metrics.connectionsOpen(open.wrappingSubtract(1, ordering: .relaxed).newValue)
        }
        guard count <= maximum else {
            metrics.connectionRefused()
            channel.close(promise: nil)
            return false
        }
        metrics.connectionsOpen(count)
        return true
    }
}

/// The head and body deadlines of one connection, on its event loop only.
///
/// A connection is waiting (between requests: the idle timeout is Hummingbird's), reading a head (from its first
/// byte, or from the connection's opening: `header_timeout`), reading a body (from the end of the head:
/// `body_timeout`), or handling a request (no deadline: the handler answers when its events are committed). Past
/// a deadline the connection is closed: with a 408 first when a request line was read, or when the body was late
/// and no answer was started.
final class RequestDeadlines {
    private enum Phase {
        /// Between requests.
        case waiting
        /// Reading a head, due by `deadline`; whether its request line (its first line) is in.
        case head(deadline: NIODeadline, requestLineRead: Bool)
        /// Reading a body, due by `deadline`; whether an answer was started already (an early 401 or 413).
        case body(deadline: NIODeadline, answered: Bool)
        /// The request is read and being answered; whether bytes of the next one came meanwhile (pipelining).
        case handling(nextArrived: Bool)
        /// Closed for lateness, or gone.
        case closed
    }

    private let header: TimeAmount
    private let body: TimeAmount
    private let metrics: ServerMetrics
    private var phase = Phase.waiting
    /// The one task on the event loop, and when it runs: it reschedules itself for the phase's deadline.
    private var scheduled: (task: Scheduled<Void>, at: NIODeadline)?
    /// The context of ``RequestBytesHandler``, first in the pipeline: a 408 written there goes straight out.
    private var context: ChannelHandlerContext?

    init(header: TimeAmount, body: TimeAmount, metrics: ServerMetrics) {
        self.header = header
        self.body = body
        self.metrics = metrics
    }

    /// The connection is open, in `context`: it owes a head.
    func start(_ context: ChannelHandlerContext) {
        guard self.context == nil else { return }
        self.context = context
        beginHead()
    }

    /// The connection closed, or the handler left the pipeline.
    func stop() {
        scheduled?.task.cancel()
        scheduled = nil
        phase = .closed
        context = nil
    }

    /// Bytes arrived, before the HTTP decoder reads them.
    func bytesArrived(_ bytes: ByteBuffer) {
        switch phase {
        case .waiting:
            beginHead()
            noteRequestLine(in: bytes)
        case .head(_, requestLineRead: false):
            noteRequestLine(in: bytes)
        case .handling(nextArrived: false):
            phase = .handling(nextArrived: true)
        case .head, .body, .handling, .closed:
            break
        }
    }

    /// The decoder read a whole head.
    func headRead() {
        if case .closed = phase { return }
        let deadline = NIODeadline.now() + body
        phase = .body(deadline: deadline, answered: false)
        schedule(deadline)
    }

    /// The decoder read the end of a request.
    func endRead() {
        if case .closed = phase { return }
        phase = .handling(nextArrived: false)
    }

    /// The answer's head was written.
    func responseHeadWritten() {
        if case .body(let deadline, answered: false) = phase { phase = .body(deadline: deadline, answered: true) }
    }

    /// The answer's end was written: the connection waits for the next request, or reads it already.
    func responseEndWritten() {
        guard case .handling(let nextArrived) = phase else { return }
        if nextArrived { beginHead() } else { phase = .waiting }
    }

    private func beginHead() {
        let deadline = NIODeadline.now() + header
        phase = .head(deadline: deadline, requestLineRead: false)
        schedule(deadline)
    }

    private func noteRequestLine(in bytes: ByteBuffer) {
        guard case .head(let deadline, requestLineRead: false) = phase,
            bytes.readableBytesView.contains(UInt8(ascii: "\n"))
        else { return }
        phase = .head(deadline: deadline, requestLineRead: true)
    }

    /// Makes sure the task runs by `deadline`: a task due earlier stays (it reschedules itself when it runs).
    private func schedule(_ deadline: NIODeadline) {
        if let scheduled, scheduled.at <= deadline { return }
        scheduled?.task.cancel()
        guard let context else { return }
        let task = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in fire() }
        scheduled = (task, deadline)
    }

    private func fire() {
        scheduled = nil
        let deadline: NIODeadline
        switch phase {
        case .head(let due, _), .body(let due, _): deadline = due
        case .waiting, .handling, .closed: return
        }
        if NIODeadline.now() < deadline {
            schedule(deadline)
        } else {
            expire()
        }
    }

    /// Closes the connection whose head or body is late, with a 408 when there is a request to answer.
    private func expire() {
        guard let context else { return }
        var message: String?
        switch phase {
        case .head(_, let requestLineRead):
            metrics.connectionTimedOut(inBody: false)
            if requestLineRead { message = "the request head did not arrive within \(Self.seconds(header))" }
        case .body(_, let answered):
            metrics.connectionTimedOut(inBody: true)
            if !answered {
                message =
                    "the body did not arrive within \(Self.seconds(body)): nothing of it was stored; send it again"
            }
            // The handler reading the body gets this error, not an end of stream: it stores nothing, and its
            // request is logged as the 408 it was.
            context.fireErrorCaught(BodyTimedOut(message: message ?? "the body did not arrive in time"))
        case .waiting, .handling, .closed:
            return
        }
        if let message {
            let json = JSONText.object(["error": .string(message)]).jsonText() + "\n"
            var buffer = context.channel.allocator.buffer(capacity: json.utf8.count + 128)
            buffer.writeString(
                "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
            context.writeAndFlush(NIOAny(buffer), promise: nil)
        }
        phase = .closed
        context.close(promise: nil)
    }

    private static func seconds(_ amount: TimeAmount) -> String {
        let milliseconds = amount.nanoseconds / 1_000_000
        return milliseconds % 1_000 == 0 ? "\(milliseconds / 1_000) s" : "\(milliseconds) ms"
    }
}

/// The error the reader of a body gets when `body_timeout` closed its connection.
struct BodyTimedOut: Error {
    let message: String
}

/// First in a connection's pipeline: tells ``RequestDeadlines`` when a connection opens, closes, and when bytes
/// of a request arrive.
final class RequestBytesHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadlines: RequestDeadlines

    init(_ deadlines: RequestDeadlines) { self.deadlines = deadlines }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { deadlines.start(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadlines.stop() }

    func channelActive(context: ChannelHandlerContext) {
        deadlines.start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadlines.stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines.bytesArrived(Self.unwrapInboundIn(data))
        context.fireChannelRead(data)
    }
}

/// After the HTTP decoder: tells ``RequestDeadlines`` when a head and a request's end were read, and when an
/// answer starts and ends.
final class RequestPartsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let deadlines: RequestDeadlines

    init(_ deadlines: RequestDeadlines) { self.deadlines = deadlines }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head: deadlines.headRead()
        case .end: deadlines.endRead()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch Self.unwrapOutboundIn(data) {
        case .head: deadlines.responseHeadWritten()
        case .end: deadlines.responseEndWritten()
        case .body: break
        }
        context.write(data, promise: promise)
    }
}
