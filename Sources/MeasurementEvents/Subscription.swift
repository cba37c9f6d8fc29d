import Dispatch
import Foundation
import Synchronization

/// How an observer or a sink is registered on a bus.
public struct ObserverOptions: Sendable, Hashable {
    /// A name for statistics and thread names.
    public var label: String
    /// How many events may wait for the observer before the overflow policy applies. Memory held for a
    /// slow observer is bounded by twice this: the waiting events and the batch being delivered.
    public var bufferCapacity: Int
    /// What a full buffer does with one more event.
    public var overflow: OverflowPolicy

    /// Creates options.
    /// - Parameters:
    ///   - label: a name for statistics; by default "observer".
    ///   - bufferCapacity: the bound on waiting events; by default 8,192 (at least 1).
    ///   - overflow: by default ``OverflowPolicy/dropNewest``.
    public init(label: String = "observer", bufferCapacity: Int = 8_192, overflow: OverflowPolicy = .dropNewest) {
        self.label = label
        self.bufferCapacity = max(1, bufferCapacity)
        self.overflow = overflow
    }
}

/// One observer, sink or async sequence registered on a bus: its bounded buffer and its delivery worker.
///
/// Sequence numbers: every event the subscription accepts gets the next number; a flush waits until no
/// event with a number at or below its target is still queued, being delivered, or (for sinks) uncommitted.
final class Subscription: Sendable {
    enum Consumer: Sendable {
        case handler(@Sendable (MeasurementEvent) -> Void)
        case sink(any EventSink)
        case stream
    }

    struct Queued {
        var sequence: UInt64
        var event: MeasurementEvent
    }

    struct Waiter {
        var target: UInt64
        var resume: @Sendable () -> Void
    }

    struct State {
        var buffer: RingBuffer<Queued>
        var accepted: UInt64 = 0
        var delivered = 0
        var dropped: [DropReason: Int] = [:]
        var unreportedLosses: [DropReason: Int] = [:]
        var inFlightFirst: UInt64?
        var uncommittedFirst: UInt64?
        var idle = false
        var stopping = false
        var cancelled = false
        var exited = false
        var waiters: [Waiter] = []
        var exitWaiters: [@Sendable () -> Void] = []
        var streamWaiter: CheckedContinuation<MeasurementEvent?, Never>?

        /// Whether nothing numbered `target` or lower is still outstanding.
        func isSettled(through target: UInt64) -> Bool {
            if exited || cancelled { return true }
            let candidates = [buffer.firstSequence, inFlightFirst, uncommittedFirst].compactMap { $0 }
            guard let lowest = candidates.min() else { return true }
            return lowest > target
        }

        mutating func takeSettledWaiters() -> [@Sendable () -> Void] {
            guard !waiters.isEmpty else { return [] }
            var ready: [@Sendable () -> Void] = []
            var waiting: [Waiter] = []
            for waiter in waiters {
                if isSettled(through: waiter.target) { ready.append(waiter.resume) } else { waiting.append(waiter) }
            }
            waiters = waiting
            return ready
        }
    }

    let label: String
    let consumer: Consumer
    let overflow: OverflowPolicy
    let capacity: Int
    let state: Mutex<State>
    /// Signalled when a sleeping worker has work (events, a flush, a stop).
    private let wake = DispatchSemaphore(value: 0)
    /// Held by the worker around each handler call, so that `cancel` from another thread can wait it out.
    private let deliveryLock = NSRecursiveLock()
    private let cancelledFlag = Atomic<Bool>(false)
    /// The worker thread's identity, to recognise calls made from inside a handler.
    private let workerThreadID = Atomic<UInt>(0)

    init(label: String, consumer: Consumer, options: ObserverOptions) {
        self.label = label
        self.consumer = consumer
        self.overflow = options.overflow
        self.capacity = options.bufferCapacity
        self.state = Mutex(State(buffer: RingBuffer(capacity: options.bufferCapacity)))
    }

    var isSink: Bool {
        if case .sink = consumer { return true }
        return false
    }

    var isStream: Bool {
        if case .stream = consumer { return true }
        return false
    }

    /// Whether the caller runs on this subscription's worker thread (inside its handler or sink).
    var isCurrentWorker: Bool {
        workerThreadID.load(ordering: .relaxed) == Subscription.currentThreadID()
    }

    static func currentThreadID() -> UInt {
        UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
    }

    // MARK: Posting side

    /// Queues `event`; called by the bus under its lock, so all subscriptions see one order.
    func enqueue(_ event: MeasurementEvent) {
        var signal = false
        var handOff: CheckedContinuation<MeasurementEvent?, Never>?
        state.withLock { state in
            guard !state.cancelled, !state.stopping else { return }
            let sequence = state.accepted
            state.accepted += 1
            if let waiter = state.streamWaiter {
                state.streamWaiter = nil
                state.delivered += 1
                handOff = waiter
                return
            }
            if state.buffer.isFull {
                state.dropped[.bufferFull, default: 0] += 1
                if isSink { state.unreportedLosses[.bufferFull, default: 0] += 1 }
                switch overflow {
                case .dropNewest:
                    return
                case .dropOldest:
                    _ = state.buffer.popFirst()
                }
            }
            state.buffer.append(Queued(sequence: sequence, event: event))
            if state.idle {
                state.idle = false
                signal = true
            }
        }
        if signal { wake.signal() }
        handOff?.resume(returning: event)
    }

    /// Records events that never reached this sink (rejected by the bus before delivery).
    func noteLoss(_ reason: DropReason) {
        guard isSink else { return }
        state.withLock { $0.unreportedLosses[reason, default: 0] += 1 }
    }

    // MARK: Flush, stop, cancel

    /// Registers `resume` to run once everything accepted so far is delivered (and, for a sink, committed).
    /// Returns `false` when there is nothing to wait for; `resume` is then not called.
    func addFlushWaiter(_ resume: @escaping @Sendable () -> Void) -> Bool {
        var signal = false
        let added = state.withLock { state -> Bool in
            guard state.accepted > 0 else { return false }
            let target = state.accepted - 1
            if state.isSettled(through: target) { return false }
            state.waiters.append(Waiter(target: target, resume: resume))
            if state.idle {
                state.idle = false
                signal = true
            }
            return true
        }
        if signal { wake.signal() }
        return added
    }

    /// Asks the worker to deliver what is queued, commit, and exit; `onExit` runs when it has.
    func stop(onExit: (@Sendable () -> Void)?) {
        var stream: CheckedContinuation<MeasurementEvent?, Never>?
        let alreadyExited = state.withLock { state -> Bool in
            state.stopping = true
            if state.buffer.isEmpty {
                stream = state.streamWaiter
                state.streamWaiter = nil
            }
            if state.exited || isStream { return true }
            if let onExit { state.exitWaiters.append(onExit) }
            state.idle = false
            return false
        }
        stream?.resume(returning: nil)
        wake.signal()
        if alreadyExited { onExit?() }
    }

    /// Stops delivery now: queued events are discarded, and no handler call starts after this returns
    /// (unless it is called from inside the handler, whose current call then completes).
    func cancel() {
        cancelledFlag.store(true, ordering: .sequentiallyConsistent)
        var ready: [@Sendable () -> Void] = []
        var stream: CheckedContinuation<MeasurementEvent?, Never>?
        state.withLock { state in
            state.cancelled = true
            _ = state.buffer.removeAll()
            ready = state.waiters.map(\.resume)
            state.waiters.removeAll()
            stream = state.streamWaiter
            state.streamWaiter = nil
            state.idle = false
        }
        wake.signal()
        stream?.resume(returning: nil)
        ready.forEach { $0() }
        if !isCurrentWorker {
            deliveryLock.lock()
            deliveryLock.unlock()
        }
    }

    func statistics() -> ObserverStatistics {
        state.withLock { state in
            ObserverStatistics(
                label: label, delivered: state.delivered, buffered: state.buffer.count, capacity: capacity,
                dropped: state.dropped)
        }
    }

    // MARK: Async sequence side

    /// The next event for an async-sequence subscription, or `nil` once it is cancelled or stopped and drained.
    func nextStreamEvent() async -> MeasurementEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<MeasurementEvent?, Never>) in
                let immediate = state.withLock { state -> MeasurementEvent?? in
                    if let queued = state.buffer.popFirst() {
                        state.delivered += 1
                        return .some(queued.event)
                    }
                    if state.cancelled || state.stopping || Task.isCancelled { return .some(nil) }
                    state.streamWaiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            cancel()
        }
    }

    // MARK: Worker

    /// Starts the delivery thread of a handler or sink subscription.
    func startWorker() {
        let thread = Thread { [self] in runWorker() }
        thread.name = "alstats.bus.\(label)"
        thread.start()
    }

    private func runWorker() {
        workerThreadID.store(Subscription.currentThreadID(), ordering: .sequentiallyConsistent)
        let sink: (any EventSink)?
        if case .sink(let attached) = consumer { sink = attached } else { sink = nil }
        let batchLimit = sink?.commitPolicy.maximumEvents ?? 1_024
        let maximumDelay = sink.map { sink -> DispatchTimeInterval in
            let (seconds, attoseconds) = sink.commitPolicy.maximumDelay.components
            return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        }
        var batch: [MeasurementEvent] = []
        batch.reserveCapacity(min(batchLimit, capacity))
        var uncommitted = 0
        var commitDeadline: DispatchTime?

        func commit() {
            guard let sink, uncommitted > 0 else { return }
            var failure = false
            do { try sink.commit() } catch { failure = true }
            let lost = uncommitted
            uncommitted = 0
            commitDeadline = nil
            let ready = state.withLock { state -> [@Sendable () -> Void] in
                state.uncommittedFirst = nil
                if failure {
                    state.delivered -= lost
                    state.dropped[.sinkError, default: 0] += lost
                    state.unreportedLosses[.sinkError, default: 0] += lost
                }
                return state.takeSettledWaiters()
            }
            ready.forEach { $0() }
        }

        while true {
            var firstSequence: UInt64 = 0
            var losses: [DropReason: Int] = [:]
            var exit = false
            var commitNow = false
            var sleep = false
            state.withLock { state in
                if state.cancelled {
                    exit = true
                    return
                }
                if sink != nil, !state.unreportedLosses.isEmpty {
                    losses = state.unreportedLosses
                    state.unreportedLosses = [:]
                }
                if let first = state.buffer.firstSequence {
                    firstSequence = first
                    state.inFlightFirst = first
                    while batch.count < batchLimit, let queued = state.buffer.popFirst() { batch.append(queued.event) }
                    return
                }
                if uncommitted > 0, !state.waiters.isEmpty || state.stopping {
                    commitNow = true
                } else if state.stopping {
                    exit = true
                } else if losses.isEmpty {
                    state.idle = true
                    sleep = true
                }
            }
            if let sink, !losses.isEmpty {
                do {
                    try sink.recordLosses(losses)
                } catch {
                    state.withLock { $0.unreportedLosses.merge(losses, uniquingKeysWith: +) }
                }
            }
            if exit { break }
            if sleep {
                if let deadline = commitDeadline {
                    if wake.wait(timeout: deadline) == .timedOut {
                        state.withLock { $0.idle = false }
                        commit()
                    }
                } else {
                    wake.wait()
                }
                continue
            }
            if commitNow {
                commit()
                continue
            }
            guard !batch.isEmpty else { continue }

            let count = batch.count
            var written = true
            switch consumer {
            case .handler(let handler):
                for event in batch {
                    if cancelledFlag.load(ordering: .relaxed) { break }
                    deliveryLock.lock()
                    if !cancelledFlag.load(ordering: .relaxed) { handler(event) }
                    deliveryLock.unlock()
                }
            case .sink(let sink):
                do { try sink.write(batch) } catch { written = false }
            case .stream:
                break
            }
            batch.removeAll(keepingCapacity: true)

            let (ready, flushWanted) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
                state.inFlightFirst = nil
                if written {
                    state.delivered += count
                    if sink != nil, state.uncommittedFirst == nil { state.uncommittedFirst = firstSequence }
                } else {
                    state.dropped[.sinkError, default: 0] += count
                    state.unreportedLosses[.sinkError, default: 0] += count
                }
                return (state.takeSettledWaiters(), !state.waiters.isEmpty && state.buffer.isEmpty)
            }
            ready.forEach { $0() }

            if sink != nil, written {
                uncommitted += count
                if commitDeadline == nil, let maximumDelay { commitDeadline = .now() + maximumDelay }
                if uncommitted >= batchLimit || flushWanted || (commitDeadline.map { .now() >= $0 } ?? false) {
                    commit()
                }
            }
        }

        commit()
        let (ready, exits) = state.withLock { state -> ([@Sendable () -> Void], [@Sendable () -> Void]) in
            state.exited = true
            let ready = state.waiters.map(\.resume)
            state.waiters.removeAll()
            let exits = state.exitWaiters
            state.exitWaiters.removeAll()
            return (ready, exits)
        }
        ready.forEach { $0() }
        exits.forEach { $0() }
    }
}

extension RingBuffer where Element == Subscription.Queued {
    var firstSequence: UInt64? { first?.sequence }
}
