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
        await gate.acquire()
        do {
            try await drainHoldingGate(source, window: max(1, batchesInFlight), progress: progress)
        } catch {
            await gate.release()
            throw error
        }
        await gate.release()
    }

    private func drainHoldingGate(
        _ source: any UploadSource, window: Int, progress: (@Sendable (UploadStatus) -> Void)?
    ) async throws(UploadError) {
        if let pause = status.pause { throw pause }
        defer { source.endUploading() }
        let pending = try source.pendingCount()
        updateStatus { $0.pending = pending }
        let first = try prepare(from: source, after: nil)
        let failure = await withTaskGroup(of: (Int, Result<Delivery, UploadError>).self) { group -> UploadError? in
            var next = first
            // The batches read and not yet settled in the source, oldest first (a split batch's halves take its
            // place), and the answers of those among them that were answered.
            var order: [Int] = []
            var answers: [Int: Settlement] = [:]
            // The second half of a split batch goes once its first half is answered: by the number of that first
            // half, the number and the half to send then.
            var after: [Int: (number: Int, batch: UploadBatch)] = [:]
            var (numbered, inFlight) = (0, 0)
            func nextNumber() -> Int {
                numbered += 1
                return numbered
            }
            func send(_ prepared: PreparedBatch, as number: Int) {
                inFlight += 1
                group.addTask {
                    let delivery = await Uploader.attempt { () async throws(UploadError) in
                        try await self.deliver(prepared)
                    }
                    return (number, delivery)
                }
            }
            func answered(_ number: Int) {
                if let (second, half) = after.removeValue(forKey: number) { send(PreparedBatch(half), as: second) }
            }
            // Up to `window` requests in flight, and one batch more read and not yet settled (the one whose answer is
            // being written while the next is sent): a push stopped at any point sends again at most `window + 1`
            // batches. The next batch is read and compressed while they are in flight.
            func fill() -> UploadError? {
                while inFlight < window, order.count <= window, let current = next {
                    let sent = nextNumber()
                    order.append(sent)
                    send(current, as: sent)
                    let following = Uploader.attemptNow { () throws(UploadError) in
                        try prepare(from: source, after: current)
                    }
                    switch following {
                    case .success(let batch): next = batch
                    case .failure(let error): return error
                    }
                }
                return nil
            }
            while true {
                if let error = fill() {
                    group.cancelAll()
                    return error
                }
                guard let (number, result) = await group.next() else { return nil }
                inFlight -= 1
                switch result {
                case .success(.settled(let settlement)):
                    answers[number] = settlement
                    answered(number)
                case .success(.split(let firstHalf, let secondHalf)):
                    // The halves take the batch's place; the second goes once the first is answered, and what was
                    // to follow the batch follows the second half.
                    let halves = (first: nextNumber(), second: nextNumber())
                    let place = order.firstIndex(of: number)!
                    order.replaceSubrange(place...place, with: [halves.first, halves.second])
                    after[halves.second] = after.removeValue(forKey: number)
                    after[halves.first] = (halves.second, secondHalf)
                    send(PreparedBatch(firstHalf), as: halves.first)
                case .failure(let error):
                    group.cancelAll()
                    return error
                }
                // The next request goes out before the answers are written, so that it is in flight meanwhile.
                if let error = fill() {
                    group.cancelAll()
                    return error
                }
                // The answers of a contiguous run from the oldest batch, in order.
                while let oldest = order.first, let settlement = answers.removeValue(forKey: oldest) {
                    do throws(UploadError) {
                        try apply(settlement, to: source)
                    } catch {
                        group.cancelAll()
                        return error
                    }
                    order.removeFirst()
                    report(source, progress: progress)
                }
                if next == nil, order.isEmpty {
                    // Nothing came after the last batch when it was read: the events committed since are read
                    // from the oldest, now that every batch is settled.
                    switch Uploader.attemptNow({ () throws(UploadError) in try prepare(from: source, after: nil) }) {
                    case .success(let following): next = following
                    case .failure(let error): return error
                    }
                    if next == nil { return nil }
                }
            }
        }
        if let failure { throw failure }
    }

    /// What one request of a batch came to.
    private enum Delivery: Sendable {
        /// The batch is answered: how it ends in the source.
        case settled(Settlement)
        /// The collector asked for smaller requests: these two halves go instead.
        case split(UploadBatch, UploadBatch)
    }

    /// How a batch, or a part of it, ends in the source once the batches before it have ended.
    private enum Settlement: Sendable {
        /// Answered by a receipt.
        case receipt(UploadBatch, UploadReceipt)
        /// Dropped without one (a lone event the collector will not take), counted under the reasons.
        case dropped(UploadBatch, [DropReason: Int])
    }

    private func apply(_ settlement: Settlement, to source: any UploadSource) throws(UploadError) {
        switch settlement {
        case .receipt(let batch, let receipt): try acknowledge(batch, receipt: receipt, in: source)
        case .dropped(let batch, let rejected): try finish(batch, rejected: rejected, in: source)
        }
    }

    /// Updates the pending count and calls `progress` with the status.
    private func report(_ source: any UploadSource, progress: (@Sendable (UploadStatus) -> Void)?) {
        updateStatus { $0.pending = (try? source.pendingCount()) ?? $0.pending }
        progress?(status)
    }

    /// The result of `body`, its error included.
    private static func attempt<T>(_ body: () async throws(UploadError) -> T) async -> Result<T, UploadError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// The result of `body`, its error included.
    private static func attemptNow<T>(_ body: () throws(UploadError) -> T) -> Result<T, UploadError> {
        do {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }

    /// The oldest batch of `source` after `previous` (from the start when `nil`), with its compressed body.
    private func prepare(from source: any UploadSource, after previous: PreparedBatch?) throws(UploadError)
        -> PreparedBatch?
    {
        guard
            let batch = try source.nextBatch(
                after: previous?.batch, maximumEvents: policy.maximumBatchEvents,
                maximumBytes: policy.maximumBatchBytes)
        else { return nil }
        return PreparedBatch(batch)
    }

    /// Sends one batch until it is answered, or until the collector asks for it in halves.
    private func deliver(_ prepared: PreparedBatch) async throws(UploadError) -> Delivery {
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
