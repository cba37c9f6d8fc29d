import EventStoreInterface
import Foundation
import MeasurementEvents
import ServiceLifecycle

/// The one writer of the store: requests hand it their events and await; it commits the events of
/// the requests waiting (at most ``maximumGroupEvents`` of them per transaction), in one transaction, on a
/// serial queue of its own (never an event-loop thread), then answers each request with its own count of newly
/// stored events.
///
/// Everything that does not need the database (redaction, column values, rollup groups, the sort by id)
/// is done by ``submit(_:losses:)`` on the request's own task, on every core at once
/// (``EventBackend/prepare(_:)``); the writer only inserts, upserts the rollups and commits. Requests
/// that arrive while a transaction commits form the next group; a group smaller than ``minimumGroupEvents``
/// waits for more while other requests are being encoded, until its first request has waited ``gatherDelay``
/// (a lone client's request, with none behind it, is committed at once). A commit costs about a millisecond
/// whatever its size (the rollup upserts, the WAL pages it rewrites): committing whatever was queued, the
/// collector made groups of 120 events (the median, under 64 clients posting 20 events each), and spent half
/// its writer's time on commits.
///
/// The queue is bounded: it holds at most ``maximumQueuedEvents`` events (a single request may exceed it
/// only when the queue is empty, so none is refused forever); a request that would overfill it is refused
/// with ``EventSubmitError/overloaded`` at once. A failed commit fails every request in it: nothing is
/// acknowledged that is not stored. Run as a `Service`: graceful shutdown stops accepting, commits what is
/// queued, answers it, and returns.
///
/// ```swift
/// let writer = GroupCommitWriter(store: store, maximumQueuedEvents: 100_000)
/// // in a ServiceGroup, before the HTTP server (which then shuts down first)
/// let newlyStored = try await writer.submit(events, losses: [:])
/// ```
public final class GroupCommitWriter<Backend: EventBackend>: EventSubmitting, Service, @unchecked Sendable {
    // @unchecked Sendable: `phase`, `queue` and `queuedEvents` are only touched while holding `condition`.

    /// Where the writer is in its life.
    private enum Phase {
        /// Taking submissions.
        case accepting
        /// Shutting down: committing what is queued, refusing more.
        case draining
        /// The thread has ended.
        case stopped
    }

    private struct Submission {
        let events: Backend.Prepared
        let losses: [DropReason: Int]
        let answer: CheckedContinuation<Result<Int, EventSubmitError>, Never>
        let queuedAt: ContinuousClock.Instant
    }

    /// The most events queued or being committed at once.
    public let maximumQueuedEvents: Int
    /// The most events committed in one transaction (a single larger request is committed alone): it bounds
    /// how long the requests of the next group wait behind the one being committed.
    public let maximumGroupEvents: Int
    /// The events at which a group stops waiting for more requests.
    public let minimumGroupEvents: Int
    /// How long the first request of a group smaller than ``minimumGroupEvents`` waits for others to share
    /// its commit.
    public let gatherDelay: Duration
    private let store: Backend
    private let metrics: ServerMetrics?
    /// Guards the properties below. A condition variable, not a `Mutex`: the writer's thread sleeps until a request
    /// is queued, then up to the gather delay for the requests still arriving.
    private let condition = NSCondition()
    private var phase = Phase.accepting
    private var queue: [Submission] = []
    private var queuedEvents = 0
    private var lastCommitFailed = false
    /// Requests admitted and being encoded, not yet queued: a small group waits for them.
    private var arriving = 0
    /// Transactions committed (or failed).
    private var committed = 0
    /// Groups that stopped gathering at the gather delay rather than because nothing more was arriving.
    private var gatherTimeouts = 0
    /// Runs in ``submit(_:losses:)`` after admission and before encoding; tests hold a request there, arriving.
    private let beforeEncoding: (@Sendable () async -> Void)?

    /// A writer for `store` holding at most `maximumQueuedEvents` events, committing at most
    /// `maximumGroupEvents` events per transaction, and waiting at most `gatherDelay` for a group to reach
    /// `minimumGroupEvents`.
    public convenience init(
        store: Backend, maximumQueuedEvents: Int = 100_000, maximumGroupEvents: Int = 4_096,
        minimumGroupEvents: Int = 1_024, gatherDelay: Duration = .milliseconds(3)
    ) {
        self.init(
            store: store, maximumQueuedEvents: maximumQueuedEvents, maximumGroupEvents: maximumGroupEvents,
            minimumGroupEvents: minimumGroupEvents, gatherDelay: gatherDelay, metrics: nil)
    }

    init(
        store: Backend, maximumQueuedEvents: Int, maximumGroupEvents: Int = 4_096,
        minimumGroupEvents: Int = 1_024, gatherDelay: Duration = .milliseconds(3), metrics: ServerMetrics?,
        beforeEncoding: (@Sendable () async -> Void)? = nil
    ) {
        self.beforeEncoding = beforeEncoding
        self.store = store
        self.maximumQueuedEvents = max(1, maximumQueuedEvents)
        self.maximumGroupEvents = max(1, maximumGroupEvents)
        self.minimumGroupEvents = min(minimumGroupEvents, self.maximumGroupEvents)
        self.gatherDelay = gatherDelay
        self.metrics = metrics
    }

    /// Whether the writer takes submissions and its last commit (if any) succeeded.
    public var isHealthy: Bool {
        condition.lock()
        defer { condition.unlock() }
        return phase == .accepting && !lastCommitFailed
    }

    /// How many transactions the writer has committed or failed to commit.
    var commits: Int {
        condition.lock()
        defer { condition.unlock() }
        return committed
    }

    /// How many groups stopped waiting for more requests at the gather delay.
    var groupsGatheredUntilTheDelay: Int {
        condition.lock()
        defer { condition.unlock() }
        return gatherTimeouts
    }

    /// The events queued or being committed now.
    public var queuedEventCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return queuedEvents
    }

    /// Queues `events` (and the rejection counts `losses` of the same request) and returns, once they are
    /// committed, how many of the events were newly stored (the others were duplicates).
    ///
    /// The events are prepared here (``EventBackend/prepare(_:)``), on the caller's task, once the queue has room for
    /// them; the SQLite store's prepared rows hold copies of their values, so a caller that hands its events over (no
    /// other reference to the array) has them freed before the wait, and a queued request holds only its rows.
    /// - Throws: ``EventSubmitError``: overloaded (queue full), closed, or the store's failure.
    public func submit(_ events: consuming [MeasurementEvent], losses: [DropReason: Int]) async throws(EventSubmitError)
        -> Int
    {
        if let refusal = lockedAdmission(of: events.count) { throw refusal }
        await beforeEncoding?()
        // Consumed: the rows hold copies of the values, and the events are freed here (if the caller kept none).
        return try await enqueue(store.prepare(events), losses: losses)
    }

    /// ``submit(_:losses:)`` of a request's decoded `events` and its `lines` read in place, which the backend
    /// prepares from their bytes (``EventBackend/prepare(_:positions:lines:)``), or took as they were read when the
    /// request had its encoder (``makeFlatLineEncoder()``): those are encoded before admission.
    public func submit(
        _ events: consuming [MeasurementEvent], positions: [Int32], lines: ScannedLines, losses: [DropReason: Int]
    ) async throws(EventSubmitError) -> Int {
        if let refusal = lockedAdmission(of: events.count + lines.count) { throw refusal }
        await beforeEncoding?()
        return try await enqueue(store.prepare(events, positions: positions, lines: lines), losses: losses)
    }

    /// Queues a request's prepared events (admitted by ``lockedAdmission(of:)``) and waits for their commit.
    private func enqueue(_ encoded: Backend.Prepared, losses: [DropReason: Int]) async throws(EventSubmitError) -> Int {
        let result = await withCheckedContinuation {
            (answer: CheckedContinuation<Result<Int, EventSubmitError>, Never>) in
            condition.lock()
            arriving -= 1
            if let refusal = admission(of: encoded.count) {
                condition.signal()
                condition.unlock()
                answer.resume(returning: .failure(refusal))
                return
            }
            queue.append(Submission(events: encoded, losses: losses, answer: answer, queuedAt: .now))
            queuedEvents += encoded.count
            metrics?.queueDepth(queuedEvents)
            condition.signal()
            condition.unlock()
        }
        // Held until the answer came, so that the request's thread frees the rows it allocated, not the writer.
        withExtendedLifetime(encoded) {}
        return try result.get()
    }

    /// ``admission(of:)`` under `condition`: a first check, so that a refused request is not encoded; an
    /// admitted one is counted as arriving until it is queued.
    private func lockedAdmission(of count: Int) -> EventSubmitError? {
        condition.lock()
        defer { condition.unlock() }
        if let refusal = admission(of: count) { return refusal }
        arriving += 1
        return nil
    }

    /// Why `count` more events cannot be queued now, or `nil` when they can. Called holding `condition`.
    private func admission(of count: Int) -> EventSubmitError? {
        guard phase == .accepting else { return .closed }
        guard queuedEvents == 0 || queuedEvents + count <= maximumQueuedEvents else { return .overloaded }
        return nil
    }

    /// Runs the writer until graceful shutdown (or cancellation), then drains the queue and returns.
    ///
    /// The loop runs on a serial queue of its own (``StoreExecutor``), never on an event loop or the cooperative
    /// pool: it waits there for submissions, and the SQLite store's write (which never suspends) runs there too; a
    /// backend that suspends on the network (PostgreSQL) gives the queue back until its answer comes.
    public func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await StoreExecutor(label: "alstats-writer").run { await self.loop() }
            } onGracefulShutdown: {
                self.close()
            }
        } onCancel: {
            self.close()
        }
    }

    /// Stops taking submissions; the thread commits what is queued and ends.
    public func close() {
        condition.lock()
        if phase == .accepting { phase = .draining }
        condition.broadcast()
        condition.unlock()
    }

    private func loop() async {
        while var batch = nextBatch() {
            await commit(&batch)
        }
    }

    /// Waits for submissions, blocking the writer's own queue (nothing else runs there); nil once draining with
    /// nothing left.
    private func nextBatch() -> [Submission]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && phase == .accepting { condition.wait() }
        guard let first = queue.first else {
            phase = .stopped
            return nil
        }
        // Nothing is being committed here, so the queued events are the next group's candidates.
        let deadline = first.queuedAt + gatherDelay
        while phase == .accepting, queuedEvents < minimumGroupEvents, arriving > 0 {
            let seconds = (deadline - .now).inSeconds
            guard seconds > 0 else {
                gatherTimeouts += 1
                break
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        // The first submission always, then the next ones while the group stays within maximumGroupEvents.
        var events = queue[0].events.count
        var taken = 1
        while taken < queue.count, events + queue[taken].events.count <= maximumGroupEvents {
            events += queue[taken].events.count
            taken += 1
        }
        let batch = Array(queue[..<taken])
        queue.removeFirst(taken)
        return batch
    }

    /// Commits `batch` and answers its requests; `batch` is emptied first (see below).
    private func commit(_ batch: inout [Submission]) async {
        var losses: [DropReason: Int] = [:]
        for submission in batch { losses.merge(submission.losses, uniquingKeysWith: +) }
        let started = ContinuousClock.now
        let outcome: Result<[Int], EventSubmitError>
        do {
            outcome = .success(try await store.writePrepared(batch.map(\.events), losses: losses))
        } catch {
            outcome = .failure(.storeFailed(error.message))
        }
        metrics?.commitFinished(after: ContinuousClock.now - started, succeeded: (try? outcome.get()) != nil)
        recordCommit(of: batch.reduce(0) { $0 + $1.events.count }, failed: (try? outcome.get()) == nil)
        // The writer lets go of the rows before it answers: each request's task then holds the last reference and
        // frees its own rows on its own thread. Released after the answers, they were the writer's to free
        // whenever a request finished first (about 3.5% of the writer's samples in the requests/s run).
        let answers = batch.map(\.answer)
        batch = []
        for (index, answer) in answers.enumerated() {
            answer.resume(returning: outcome.map { $0[index] })
        }
    }

    /// Counts a commit (or a failed one) of `events` events, which leave the queue.
    private func recordCommit(of events: Int, failed: Bool) {
        condition.lock()
        defer { condition.unlock() }
        committed += 1
        queuedEvents -= events
        lastCommitFailed = failed
        metrics?.queueDepth(queuedEvents)
    }
}

extension GroupCommitWriter: FlatLineEncoderSource {
    /// The store's encoder of a request's lines (``FlatLineEncoding``), if it has one; none while the queue is full,
    /// so that a request about to be refused keeps its lines as bytes rather than encoding them.
    package func makeFlatLineEncoder() -> (any FlatLineEncoder)? {
        guard let encoding = store as? any FlatLineEncoding else { return nil }
        condition.lock()
        let full = queuedEvents >= maximumQueuedEvents || phase != .accepting
        condition.unlock()
        return full ? nil : encoding.makeFlatLineEncoder()
    }
}
