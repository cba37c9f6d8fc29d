import Foundation
import MeasurementEvents
import Synchronization

/// The upload loop shared by ``HTTPEventSink`` and ``EventPusher``: takes the oldest batch of a source,
/// sends it, and handles the answer as docs/upload.md says, one batch at a time.
///
/// - 2xx with a receipt: the batch is done; lines the receipt rejects are counted as `upload_rejected:REASON`.
/// - A network error, 408, 429, 5xx, or a 2xx without a readable receipt: retried after ``RetrySchedule``'s
///   delay, the same batch again (the collector's id dedup makes a resent event a duplicate, not a copy).
/// - 413: the batch is split in two halves, each sent on its own; a lone event is dropped as
///   `upload_rejected:too_large`.
/// - 400 with a receipt: as a 2xx (every line rejected); 400 without one: split as for 413, and a lone event
///   the collector will not read is dropped as `upload_rejected:bad_request`.
/// - 401 and 403, and any other 4xx: paused, nothing deleted.
package final class Uploader: Sendable {
    package let endpoint: URL
    package let policy: UploadPolicy
    let transport: any UploadTransport
    let clock: any UploadClock
    let random: any UploadRandomSource
    private let schedule: RetrySchedule
    private let state: Mutex<State>
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
        state = Mutex(State(writeKey: writeKey))
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
    /// - Parameter progress: called after every receipt, with the status.
    /// - Throws: ``UploadError`` when paused (``UploadError/Kind/refused(status:)``,
    ///   ``UploadError/Kind/misdirected(status:)``), after ``UploadPolicy/giveUpAfter`` of failures
    ///   (``UploadError/Kind/unreachable``), for a failing source, and when cancelled.
    package func drain(_ source: any UploadSource, progress: (@Sendable (UploadStatus) -> Void)? = nil)
        async throws(UploadError)
    {
        await gate.acquire()
        do {
            try await drainHoldingGate(source, progress: progress)
        } catch {
            await gate.release()
            throw error
        }
        await gate.release()
    }

    private func drainHoldingGate(_ source: any UploadSource, progress: (@Sendable (UploadStatus) -> Void)?)
        async throws(UploadError)
    {
        if let pause = status.pause { throw pause }
        defer { source.endUploading() }
        let pending = try source.pendingCount()
        updateStatus { $0.pending = pending }
        var next = try prepare(from: source, after: nil)
        // The batch before `next` and its receipt: removed from the source while `next` is in flight.
        var answered: (batch: UploadBatch, receipt: UploadReceipt)?
        while let current = next {
            // One request at a time. While it is in flight, the batch before it is acknowledged in the source (a
            // DELETE and a commit for the outbox) and the batch after it is read, encoded and compressed, so that
            // the collector's round trip is the only wait between requests. A crash before the acknowledgement
            // sends that batch again, and the collector answers it with duplicates.
            let previous = answered
            async let acknowledged = Uploader.attempt { () throws(UploadError) in
                if let previous { try acknowledge(previous.batch, receipt: previous.receipt, in: source) }
            }
            async let following = Uploader.attempt { () throws(UploadError) in
                try prepare(from: source, after: current)
            }
            let delivered = await Uploader.attempt { () async throws(UploadError) in
                try await deliver(current, to: source)
            }
            let (acknowledgement, read) = (await acknowledged, await following)
            try acknowledgement.get()
            if previous != nil { report(source, progress: progress) }
            answered = try delivered.get().map { (current.batch, $0) }
            next = try read.get()
            if next == nil {
                // Nothing came after it when it was read. Once it is acknowledged, the events committed since are
                // read from the oldest.
                if let last = answered {
                    try acknowledge(last.batch, receipt: last.receipt, in: source)
                    answered = nil
                }
                report(source, progress: progress)
                next = try prepare(from: source, after: nil)
            }
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

    /// Sends one batch until it is answered, splitting it when the collector asks.
    /// - Returns: the receipt, for the caller to acknowledge the batch with; `nil` when the batch is already done
    ///   in the source (split, each part acknowledged on its own; or dropped).
    private func deliver(_ prepared: PreparedBatch, to source: any UploadSource) async throws(UploadError)
        -> UploadReceipt?
    {
        let batch = prepared.batch
        if batch.count == 1, batch.lines[0].utf8.count + 1 > policy.maximumBatchBytes {
            try finish(batch, rejected: ["upload_rejected:too_large": 1], in: source)
            return nil
        }
        var attempt = 0
        while true {
            if Task.isCancelled { throw UploadError(.cancelled, "the upload was cancelled") }
            let outcome = await send(prepared.body, lines: batch.count)
            switch outcome {
            case .receipt(let receipt):
                state.withLock { $0.failingSince = nil }
                return receipt
            case .split(let reason):
                state.withLock { $0.failingSince = nil }
                guard batch.count > 1 else {
                    try finish(batch, rejected: [reason: 1], in: source)
                    return nil
                }
                let (first, second) = batch.halves
                for half in [first, second] {
                    if let receipt = try await deliver(PreparedBatch(half), to: source) {
                        try acknowledge(half, receipt: receipt, in: source)
                    }
                }
                return nil
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
        return classify(response)
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
            return .split("upload_rejected:bad_request")
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
