import Foundation
import MeasurementEvents

/// The upload loop shared by ``HTTPEventSink`` and ``EventPusher``: reads the oldest batches of a source, sends
/// them (one at a time for the sink, a window of several for a push), and handles each answer as docs/upload.md
/// says, writing the answers to the source in the order the batches were read.
///
/// - 2xx with a receipt that accounts for every line sent: the batch is done; lines the receipt rejects are
///   counted as `upload_rejected:CODE`. A receipt for another number of lines (`lines`) is no answer: retried.
/// - A network error, 408, 429, 5xx, or a 2xx without a readable receipt: retried after ``RetrySchedule``'s
///   delay, the same batch again (the collector's id dedup makes a resent event a duplicate, not a copy).
/// - 413: the batch is split in two halves, each sent on its own; a lone event is dropped as
///   `upload_rejected:too_large`.
/// - 400 with a receipt: as a 2xx (every line rejected). 400 without one: the collector could not read the body
///   whole (a gzip stream damaged on the way, a proxy that changed it), which says nothing against any line:
///   retried like a 5xx, nothing dropped.
/// - 401 and 403, and any other 4xx: paused, nothing deleted.
package final class Uploader: Sendable {
    package let endpoint: URL
    package let policy: UploadPolicy
    let transport: any UploadTransport
    let clock: any UploadClock
    let random: any UploadRandomSource
    private let schedule: RetrySchedule
    private let state: StateLock<State>
    private let gate = UploadGate()

    private struct State {
        var writeKey: String
        var status = UploadStatus()
        /// When the current run of failures began (reset by every answer that is not a retry).
        var failingSince: Date?
    }

    package init(
        endpoint: URL, writeKey: String, policy: UploadPolicy, transport: any UploadTransport,
        clock: any UploadClock, random: any UploadRandomSource
    ) {
        self.endpoint = Uploader.eventsURL(endpoint)
        self.policy = policy
        self.transport = transport
        self.clock = clock
        self.random = random
        schedule = RetrySchedule(policy: policy)
        state = StateLock(State(writeKey: writeKey))
    }

    /// `URL/v1/events` for a URL without a path (`http://collector:8080`), else the URL as given.
    package static func eventsURL(_ url: URL) -> URL {
        guard url.path.isEmpty || url.path == "/" else { return url }
        return url.appendingPathComponent("v1").appendingPathComponent("events")
    }

    /// A snapshot of the status.
    package var status: UploadStatus { state.withLock { $0.status } }

    /// Updates the status.
    package func updateStatus(_ body: (inout UploadStatus) -> Void) {
        state.withLock { body(&$0.status) }
    }

    /// Clears a pause, with a new write key when one is given.
    package func resume(writeKey: String?) {
        state.withLock { state in
            if let writeKey { state.writeKey = writeKey }
            state.status.pause = nil
        }
    }

    /// Sends batches from `source` until it is empty.
    /// - Parameters:
    ///   - batchesInFlight: how many requests may be in flight at once (at least 1). Receipts are applied to the
    ///     source in the order the batches were read, so a push's cursor only moves past a contiguous run of
    ///     acknowledged batches: a push stopped at any point sends again only what was not acknowledged in order,
    ///     and the collector's id dedup absorbs what it had already stored.
    ///   - progress: called after every receipt, with the status.
    /// - Throws: ``UploadError`` when paused (``UploadError/Kind/refused(status:)``,
    ///   ``UploadError/Kind/misdirected(status:)``), after ``UploadPolicy/giveUpAfter`` of failures
    ///   (``UploadError/Kind/unreachable``), for a failing source, and when cancelled.
    package func drain(
        _ source: any UploadSource, batchesInFlight: Int = 1, progress: (@Sendable (UploadStatus) -> Void)? = nil
    ) async throws(UploadError) {
        try await gate.holding { () async throws(UploadError) in
            if let pause = status.pause { throw pause }
            defer { source.endUploading() }
            let pending = try source.pendingCount()
            updateStatus { $0.pending = pending }
            var drain = Drain(
                uploader: self, source: source, window: UploadWindow(capacity: batchesInFlight), progress: progress)
            try await drain.run()
        }
    }

    /// The requests of one drain, each a task of a group that answers with its batch's number.
    private typealias Requests = TaskGroup<(Int, Result<UploadWindow.Delivery, UploadError>)>

    /// One drain of a source: the window of batches in flight (``UploadWindow``), which decides what goes next, and
    /// the next batch, read and compressed while the requests before it are in flight.
    private struct Drain {
        let uploader: Uploader
        let source: any UploadSource
        var window: UploadWindow
        let progress: (@Sendable (UploadStatus) -> Void)?
        var next: PreparedBatch?

        init(
            uploader: Uploader, source: any UploadSource, window: UploadWindow,
            progress: (@Sendable (UploadStatus) -> Void)?
        ) {
            self.uploader = uploader
            self.source = source
            self.window = window
            self.progress = progress
        }

        /// Sends and settles batches until the source has none left; a failure cancels the requests in flight.
        mutating func run() async throws(UploadError) {
            next = try uploader.prepare(from: source, after: nil)
            var drain = self
            let failure = await withTaskGroup(of: (Int, Result<UploadWindow.Delivery, UploadError>).self) { group in
                do throws(UploadError) {
                    try await drain.loop(&group)
                    return nil as UploadError?
                } catch {
                    group.cancelAll()
                    return error
                }
            }
            self = drain
            if let failure { throw failure }
        }

        private mutating func loop(_ group: inout Requests) async throws(UploadError) {
            while true {
                try fill(&group)
                guard let (number, result) = await group.next() else { return }
                for (half, batch) in window.answer(number, try result.get()) {
                    send(PreparedBatch(batch), as: half, in: &group)
                }
                // The next request goes out before the answers are written, so that it is in flight meanwhile.
                try fill(&group)
                for settlement in window.takeSettledRun() {
                    try uploader.apply(settlement, to: source)
                    uploader.report(source, progress: progress)
                }
                if next == nil, window.isSettled {
                    // Nothing came after the last batch when it was read: the events committed since are read from
                    // the oldest, now that every batch is settled.
                    next = try uploader.prepare(from: source, after: nil)
                    if next == nil { return }
                }
            }
        }

        /// Sends batches while the window has room, reading each next one while they are in flight.
        private mutating func fill(_ group: inout Requests) throws(UploadError) {
            while window.canSend, let current = next {
                send(current, as: window.send(), in: &group)
                next = try uploader.prepare(from: source, after: current)
            }
        }

        private func send(_ prepared: PreparedBatch, as number: Int, in group: inout Requests) {
            let uploader = self.uploader
            group.addTask {
                // The result is made first and the tuple after: Swift 6.3.1's optimizer gave a tuple returned from
                // inside `do throws(UploadError)` in this task a garbage number in release builds, so no answer
                // was ever settled (a push acknowledged nothing, and `alstats demo` stopped after one batch).
                let result = await uploader.deliveryResult(of: prepared)
                return (number, result)
            }
        }
    }

    fileprivate func apply(_ settlement: UploadWindow.Settlement, to source: any UploadSource) throws(UploadError) {
        switch settlement {
        case .receipt(let batch, let receipt): try acknowledge(batch, receipt: receipt, in: source)
        case .dropped(let batch, let rejected): try finish(batch, rejected: rejected, in: source)
        }
    }

    /// Updates the pending count and calls `progress` with the status.
    fileprivate func report(_ source: any UploadSource, progress: (@Sendable (UploadStatus) -> Void)?) {
        updateStatus { $0.pending = (try? source.pendingCount()) ?? $0.pending }
        progress?(status)
    }

    /// The oldest batch of `source` after `previous` (from the start when `nil`), with its compressed body.
    fileprivate func prepare(from source: any UploadSource, after previous: PreparedBatch?) throws(UploadError)
        -> PreparedBatch?
    {
        guard
            let batch = try source.nextBatch(
                after: previous?.batch, maximumEvents: policy.maximumBatchEvents,
                maximumBytes: policy.maximumBatchBytes)
        else { return nil }
        return PreparedBatch(batch)
    }

    /// ``deliver(_:)`` as a `Result`.
    fileprivate func deliveryResult(of prepared: PreparedBatch) async -> Result<UploadWindow.Delivery, UploadError> {
        do throws(UploadError) {
            return .success(try await deliver(prepared))
        } catch {
            return .failure(error)
        }
    }

    /// Sends one batch until it is answered, or until the collector asks for it in halves.
    fileprivate func deliver(_ prepared: PreparedBatch) async throws(UploadError) -> UploadWindow.Delivery {
        let batch = prepared.batch
        if batch.count == 1, batch.body.count > policy.maximumBatchBytes {
            return .settled(.dropped(batch, ["upload_rejected:too_large": 1]))
        }
        var attempt = 0
        while true {
            if Task.isCancelled { throw UploadError(.cancelled, "the upload was cancelled") }
            let outcome = await send(prepared.body, lines: batch.count)
            switch outcome {
            case .receipt(let receipt):
                state.withLock { $0.failingSince = nil }
                return .settled(.receipt(batch, receipt))
            case .split(let reason):
                state.withLock { $0.failingSince = nil }
                guard batch.count > 1 else { return .settled(.dropped(batch, [reason: 1])) }
                let (first, second) = batch.halves
                return .split(first, second)
            case .pause(let error):
                updateStatus {
                    $0.pause = error
                    $0.lastError = error.message
                }
                throw error
            case .retry(let why, let retryAfter):
                try await wait(attempt: attempt, retryAfter: retryAfter, why: why)
                attempt += 1
            }
        }
    }

    /// What to do after one request.
    package enum Outcome: Sendable, Hashable {
        case receipt(UploadReceipt)
        case retry(String, retryAfter: Duration?)
        case split(DropReason)
        case pause(UploadError)
    }

    private func send(_ body: Data, lines: Int) async -> Outcome {
        let key = state.withLock { $0.writeKey }
        let response: UploadResponse
        do {
            response = try await transport.send(body, to: endpoint, writeKey: key, timeout: policy.requestTimeout)
        } catch {
            return .retry("no answer from \(endpoint.absoluteString): \(error.localizedDescription)", retryAfter: nil)
        }
        let outcome = classify(response)
        if case .receipt(let receipt) = outcome, let read = receipt.lines, read != lines {
            // The collector read another body than the one sent (cut, or another request's): no answer. Sent
            // again, its events already stored come back as duplicates.
            return .retry(
                "\(endpoint.absoluteString) answered for \(read) lines of the \(lines) sent", retryAfter: nil)
        }
        return outcome
    }

    /// The meaning of the collector's answer.
    package func classify(_ response: UploadResponse) -> Outcome {
        let status = response.status
        let retryAfter = response.retryAfter.flatMap { RetrySchedule.retryAfter($0, now: clock.now()) }
        let place = endpoint.absoluteString
        switch status {
        case 200..<300:
            guard let receipt = UploadReceipt(body: response.body) else {
                return .retry("\(place) answered \(status) without a readable receipt", retryAfter: retryAfter)
            }
            return .receipt(receipt)
        case 400:
            if let receipt = UploadReceipt(body: response.body) { return .receipt(receipt) }
            return .retry("\(place) answered 400 without a receipt: it could not read the body", retryAfter: nil)
        case 401, 403:
            return .pause(
                UploadError(
                    .refused(status: status),
                    "\(place) refused the write key (\(status)): give a valid write key; nothing was deleted"))
        case 413:
            return .split("upload_rejected:too_large")
        case 408, 429, 500..<600:
            return .retry("\(place) answered \(status)", retryAfter: retryAfter)
        default:
            return .pause(
                UploadError(
                    .misdirected(status: status),
                    "\(place) answered \(status) to POST: check the collector URL; nothing was deleted"))
        }
    }

    private func acknowledge(_ batch: UploadBatch, receipt: UploadReceipt, in source: any UploadSource)
        throws(UploadError)
    {
        var rejected: [DropReason: Int] = [:]
        var seen = Set<Int>()
        for error in receipt.errors where error.line <= batch.count && seen.insert(error.line).inserted {
            rejected[UploadReceipt.dropReason(error.reason), default: 0] += 1
        }
        try source.finish(batch, rejected: rejected, unseen: false)
        let now = clock.now()
        updateStatus { status in
            status.accepted += receipt.accepted
            status.duplicates += receipt.duplicates
            status.dropped.merge(rejected, uniquingKeysWith: +)
            status.lastSuccess = now
            status.lastError = nil
            status.retries = 0
        }
    }

    private func finish(_ batch: UploadBatch, rejected: [DropReason: Int], in source: any UploadSource)
        throws(UploadError)
    {
        try source.finish(batch, rejected: rejected, unseen: true)
        updateStatus { $0.dropped.merge(rejected, uniquingKeysWith: +) }
    }

    /// `42 s`, `5 min 3 s`: a duration for a message.
    static func words(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        return seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min \(seconds % 60) s"
    }

    /// Waits before retry number `attempt`, or throws once failures have lasted longer than the give-up time.
    private func wait(attempt: Int, retryAfter: Duration?, why: String) async throws(UploadError) {
        let now = clock.now()
        let since = state.withLock { state in
            if state.failingSince == nil { state.failingSince = now }
            state.status.lastError = why
            state.status.retries = attempt + 1
            return state.failingSince ?? now
        }
        var delay = schedule.delay(attempt: attempt, retryAfter: retryAfter, unit: random.nextUnit())
        if let limit = policy.giveUpAfter {
            let failing = Duration.milliseconds(Int64(now.timeIntervalSince(since) * 1000))
            if failing >= limit {
                state.withLock { $0.failingSince = nil }
                throw UploadError(
                    .unreachable,
                    "\(endpoint.absoluteString) stayed unreachable for \(Uploader.words(failing)) of retries "
                        + "(\(why)): check the URL and the network, and try again")
            }
            // One last try at the give-up time, unless the collector asked for a later one.
            if failing + delay > limit, retryAfter == nil { delay = limit - failing }
        }
        do {
            try await clock.sleep(for: delay)
        } catch {
            throw UploadError(.cancelled, "the upload was cancelled while waiting to retry (\(why))")
        }
    }
}
