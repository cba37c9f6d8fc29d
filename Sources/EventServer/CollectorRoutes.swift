import EventStoreInterface
import Hummingbird
import MeasurementEvents

/// The collector (`/v1/*`, write role): NDJSON at `/v1/events`, Segment's HTTP Tracking API at `/v1/batch`,
/// `/v1/track`, `/v1/screen`, `/v1/page`, `/v1/identify`, `/v1/group`, `/v1/alias`. Every answer comes once
/// the events it acknowledges are committed (``GroupCommitWriter``). A write key over its rate
/// (``KeyRateLimiter``) is answered 429 and nothing of its request is stored.
struct CollectorRoutes {
    typealias Context = ServerRequestContext

    let writer: any EventSubmitting
    let metrics: ServerMetrics
    let codec: NDJSONCodec
    let clock: any EventClock
    let limiter: KeyRateLimiter

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("events") { request, context in try await events(request, context: context) }
        group.post("batch") { request, context in
            switch try await segmentIntake(request, type: nil, context: context) {
            case .refused(let refusal): return await refusal.answer()
            case .within(let intake): return try await segmentAnswer(intake, context: context)
            }
        }
        for type in ["track", "screen", "page", "identify", "group", "alias"] {
            group.post(RouterPath(type)) { request, context in
                switch try await segmentIntake(request, type: type, context: context) {
                case .refused(let refusal): return await refusal.answer()
                case .within(let intake): return try await segmentAnswer(intake, context: context)
                }
            }
        }
    }

    /// `POST /v1/events`: the receipt, 200 when a line was accepted or a duplicate (or the body was empty),
    /// 400 when every line was rejected; 429 over the key's rate.
    private func events(_ request: Request, context: Context) async throws -> Response {
        switch try await ndjsonBody(request, context: context) {
        case .refused(let refusal):
            return await refusal.answer()
        case .within(let body):
            // The backend's encoder (if it has one) makes the rows of the lines read in place as they are read.
            let encoder = (writer as? any FlatLineEncoderSource)?.makeFlatLineEncoder()
            let receipt = try await store(Intake.ndjson(body, codec: codec, encoder: encoder), context: context)
            return .json(receipt.json(), status: receipt.allRejected ? .badRequest : .ok)
        }
    }

    /// The NDJSON body of `request`, or the refusal of its key's rate. The lines are counted before they are
    /// decoded: a key over its rate costs a scan for newlines, not a decode.
    private func ndjsonBody(_ request: Request, context: Context) async throws -> Admission<ByteBuffer> {
        let body = try await RequestBodyReader.read(request, accepting: RequestBodyReader.ndjsonTypes)
        if limiter.limits(context.writeKey),
            let refusal = refusal(
                Intake.countLines(body), context: context, segment: false, { Intake.lineNumbers(body) })
        {
            return .refused(refusal)
        }
        return .within(body)
    }

    /// The Segment call (of `type`) or batch (nil) of `request`, or the refusal of its key's rate.
    private func segmentIntake(_ request: Request, type: String?, context: Context) async throws -> Admission<Intake> {
        let body = try await RequestBodyReader.read(request, accepting: RequestBodyReader.segmentTypes)
        let receivedAt = clock.nowMilliseconds()
        let intake =
            try type.map { try Intake.segmentCall(body, type: $0, receivedAt: receivedAt, flattener: codec.flattener) }
            ?? Intake.segmentBatch(body, receivedAt: receivedAt, flattener: codec.flattener)
        if let refusal = refusal(intake.lines, context: context, segment: true, { Array(1...intake.lines) }) {
            return .refused(refusal)
        }
        return .within(intake)
    }

    /// Segment's answer: `{"success": true}` plus the receipt; 400 with `success: false` when every call sent
    /// for storage was rejected.
    private func segmentAnswer(_ intake: consuming Intake, context: Context) async throws -> Response {
        let ignored = intake.ignored
        for (type, count) in ignored { metrics.ignored(type: type, count: count) }
        var receipt = try await store(intake, context: context)
        receipt.ignored = ignored.values.reduce(0, +)
        let failed = receipt.allRejected && ignored.isEmpty
        return .json(receipt.json(success: !failed), status: failed ? .badRequest : .ok)
    }

    /// Hands the intake to the writer and waits for its commit. The intake's events are handed over (no copy is
    /// left here), so that they are freed once encoded, while the request waits for its commit.
    /// - Throws: ``EventServerError``: 503 with `Retry-After` when the queue is full or the server is
    ///   stopping, 500 when the commit failed (nothing of the request is acknowledged).
    private func store(_ intake: consuming Intake, context: Context) async throws(EventServerError) -> Receipt {
        let count = intake.eventCount
        let lines = intake.lines
        let rejections = intake.rejections
        let warnings = intake.warnings
        let losses = intake.losses
        let events = intake.events
        let positions = intake.positions
        let inPlace = intake.inPlace
        _ = consume intake
        context.tally.set(events: count + rejections.count)
        var stored = 0
        if count > 0 || !losses.isEmpty {
            do {
                stored =
                    inPlace.isEmpty
                    ? try await writer.submit(consume events, losses: losses)
                    : try await writer.submit(consume events, positions: positions, lines: inPlace, losses: losses)
            } catch {
                throw error.answer
            }
        }
        let receipt = Receipt(
            lines: lines, accepted: stored, duplicates: count - stored, rejections: rejections, warnings: warnings)
        metrics.events(
            accepted: receipt.accepted, duplicates: receipt.duplicates,
            rejected: Dictionary(rejections.map { ($0.code, 1) }, uniquingKeysWith: +))
        return receipt
    }
}

extension EventSubmitError {
    /// The HTTP answer of a refused submission: 503 with `Retry-After` when overloaded or closing, 500 when
    /// the commit failed.
    public var answer: EventServerError {
        switch self {
        case .overloaded:
            return EventServerError(
                .serviceUnavailable, "the write queue is full: retry after a second", headers: [.retryAfter: "1"])
        case .closed:
            return EventServerError(
                .serviceUnavailable, "the server is shutting down: retry shortly", headers: [.retryAfter: "5"])
        case .storeFailed(let message):
            return EventServerError(.internalServerError, "nothing was stored: \(message)")
        }
    }
}
