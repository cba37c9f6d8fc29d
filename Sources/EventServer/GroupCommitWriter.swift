import EventStore
import Foundation
import MeasurementEvents
import ServiceLifecycle

/// The one writer of the store: requests hand it their events and await; it commits the events of
/// every request waiting, in one transaction, on a thread of its own (never an event-loop thread), then
/// answers each request with its own count of newly stored events.
///
/// The queue is bounded: it holds at most ``maximumQueuedEvents`` events (a single request may exceed it
/// only when the queue is empty, so none is refused forever); a request that would overfill it is refused
/// with ``SubmitError/overloaded`` at once. A failed commit fails every request in it: nothing is
/// acknowledged that is not stored. Run as a `Service`: graceful shutdown stops accepting, commits what is
/// queued, answers it, and returns.
///
/// ```swift
/// let writer = GroupCommitWriter(store: store, maximumQueuedEvents: 100_000)
/// // in a ServiceGroup, before the HTTP server (which then shuts down first)
/// let newlyStored = try await writer.submit(events, losses: [:])
/// ```
public final class GroupCommitWriter: Service, @unchecked Sendable {
    // @unchecked Sendable: `phase`, `queue` and `queuedEvents` are only touched while holding `condition`.

    /// Why a submission was not stored.
    public enum SubmitError: Error, Sendable, Hashable {
        /// The queue is full: answer 503 with `Retry-After`.
        case overloaded
        /// The writer is shutting down or stopped.
        case closed
        /// The commit failed; the message says why (from ``StoreError``).
        case storeFailed(String)
    }

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
        let events: [MeasurementEvent]
        let losses: [DropReason: Int]
        let answer: CheckedContinuation<Result<Int, SubmitError>, Never>
    }

    /// The most events queued or being committed at once.
    public let maximumQueuedEvents: Int
    private let store: any EventBackend
    private let metrics: ServerMetrics?
    private let condition = NSCondition()
    private var phase = Phase.accepting
    private var queue: [Submission] = []
    private var queuedEvents = 0
    private var lastCommitFailed = false

    /// A writer for `store` holding at most `maximumQueuedEvents` events.
    public convenience init(store: any EventBackend, maximumQueuedEvents: Int = 100_000) {
        self.init(store: store, maximumQueuedEvents: maximumQueuedEvents, metrics: nil)
    }

    init(store: any EventBackend, maximumQueuedEvents: Int, metrics: ServerMetrics?) {
        self.store = store
        self.maximumQueuedEvents = max(1, maximumQueuedEvents)
        self.metrics = metrics
    }

    /// Whether the writer takes submissions and its last commit (if any) succeeded.
    public var isHealthy: Bool {
        condition.lock()
        defer { condition.unlock() }
        return phase == .accepting && !lastCommitFailed
    }

    /// The events queued or being committed now.
    public var queuedEventCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return queuedEvents
    }

    /// Queues `events` (and the rejection counts `losses` of the same request) and returns, once they are
    /// committed, how many of the events were newly stored (the others were duplicates).
    /// - Throws: ``SubmitError``: overloaded (queue full), closed, or the store's failure.
    public func submit(_ events: [MeasurementEvent], losses: [DropReason: Int]) async throws(SubmitError) -> Int {
        let result = await withCheckedContinuation { (answer: CheckedContinuation<Result<Int, SubmitError>, Never>) in
            condition.lock()
            guard phase == .accepting else {
                condition.unlock()
                answer.resume(returning: .failure(.closed))
                return
            }
            guard queuedEvents == 0 || queuedEvents + events.count <= maximumQueuedEvents else {
                condition.unlock()
                answer.resume(returning: .failure(.overloaded))
                return
            }
            queue.append(Submission(events: events, losses: losses, answer: answer))
            queuedEvents += events.count
            metrics?.queueDepth(queuedEvents)
            condition.signal()
            condition.unlock()
        }
        return try result.get()
    }

    /// Runs the writer's thread until graceful shutdown (or cancellation), then drains the queue and returns.
    public func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                    let thread = Thread { [self] in
                        loop()
                        finished.resume()
                    }
                    thread.name = "alstats-writer"
                    thread.start()
                }
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

    private func loop() {
        while let batch = nextBatch() {
            commit(batch)
        }
    }

    /// Waits for submissions; nil once draining with nothing left.
    private func nextBatch() -> [Submission]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && phase == .accepting { condition.wait() }
        guard !queue.isEmpty else {
            phase = .stopped
            return nil
        }
        let batch = queue
        queue.removeAll(keepingCapacity: true)
        return batch
    }

    private func commit(_ batch: [Submission]) {
        var losses: [DropReason: Int] = [:]
        for submission in batch { losses.merge(submission.losses, uniquingKeysWith: +) }
        let started = ContinuousClock.now
        let outcome: Result<[Int], SubmitError>
        do {
            outcome = .success(try GroupCommitWriter.writeBatches(batch.map(\.events), losses: losses, to: store))
        } catch {
            outcome = .failure(.storeFailed(error.message))
        }
        metrics?.commitFinished(after: ContinuousClock.now - started, succeeded: (try? outcome.get()) != nil)
        let events = batch.reduce(0) { $0 + $1.events.count }
        condition.lock()
        queuedEvents -= events
        lastCommitFailed = (try? outcome.get()) == nil
        metrics?.queueDepth(queuedEvents)
        condition.unlock()
        for (index, submission) in batch.enumerated() {
            submission.answer.resume(returning: outcome.map { $0[index] })
        }
    }
}
