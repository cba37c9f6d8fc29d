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
        var buffer: EventInbox<Queued>
        var accepted: UInt64 = 0
        var delivered = 0
        var dropped: [DropReason: Int] = [:]
        var unreportedLosses: [DropReason: Int] = [:]
        /// The sink failed to record the unreported losses (a locked or full database): they wait for the
        /// next batch instead of being retried at once, and flushes do not wait for them.
        var lossReportFailed = false
        var inFlightFirst: UInt64?
        var inFlightCount = 0
        var uncommittedFirst: UInt64?
        var phase = Phase.running
        var waiters: [Waiter] = []
        var streamWaiter: CheckedContinuation<MeasurementEvent?, Never>?
        /// An async-sequence consumer's batch, taken from the inbox in one swap, served from `streamIndex`.
        var streamTaken: [Queued] = []
        var streamIndex = 0

        /// The oldest event waiting for an async-sequence consumer. The batch taken earlier is served first
        /// (it is older than anything in the inbox); when it is used up the inbox is taken whole, so a
        /// consumer that lags pays O(1) per event, not a move of the whole queue.
        mutating func popStreamEvent() -> MeasurementEvent? {
            if streamIndex == streamTaken.count {
                streamTaken.removeAll(keepingCapacity: true)
                streamIndex = 0
                buffer.take(into: &streamTaken)
                if streamTaken.isEmpty { return nil }
            }
            defer { streamIndex += 1 }
            return streamTaken[streamIndex].event
        }

        /// Whether nothing numbered below `target` is still outstanding (queued, being delivered, or for
        /// a sink uncommitted), and a sink has heard of every loss so far.
        func isSettled(below target: UInt64) -> Bool {
            if phase.isFinished { return true }
            guard unreportedLosses.isEmpty || lossReportFailed else { return false }
            let candidates = [buffer.firstSequence, inFlightFirst, uncommittedFirst].compactMap { $0 }
            guard let lowest = candidates.min() else { return true }
            return lowest >= target
        }

        mutating func takeSettledWaiters() -> [@Sendable () -> Void] {
            guard !waiters.isEmpty else { return [] }
            var ready: [@Sendable () -> Void] = []
            var waiting: [Waiter] = []
            for waiter in waiters {
                if isSettled(below: waiter.target) { ready.append(waiter.resume) } else { waiting.append(waiter) }
            }
            waiters = waiting
            return ready
        }
    }

    let label: String
    let consumer: Consumer
    let overflow: OverflowPolicy
    let capacity: Int
    let state: StateLock<State>
    /// Signalled when a sleeping worker has work (events, a flush, a stop).
    let wake = DispatchSemaphore(value: 0)
    /// Held by the worker around each handler call, so that `cancel` from another thread can wait it out.
    let deliveryLock = NSRecursiveLock()
    let cancelledFlag = Atomic<Bool>(false)
    /// The worker thread's identity, to recognise calls made from inside a handler.
    let workerThreadID = Atomic<UInt>(0)
    /// The bus's clock, on which a sink's commit deadline runs.
    let clock: any EventClock

    init(label: String, consumer: Consumer, options: ObserverOptions, clock: any EventClock) {
        self.label = label
        self.consumer = consumer
        self.clock = clock
        self.overflow = options.overflow
        self.capacity = options.bufferCapacity
        self.state = StateLock(State(buffer: EventInbox(capacity: options.bufferCapacity)))
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
    func enqueue(_ event: consuming MeasurementEvent) {
        var signal = false
        var handOff: CheckedContinuation<MeasurementEvent?, Never>?
        var pending: MeasurementEvent? = consume event
        state.withLock { state in
            guard state.phase.acceptsEvents else { return }
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
                    state.buffer.overwriteOldest(with: Queued(sequence: sequence, event: pending.take()!))
                }
            } else {
                state.buffer.append(Queued(sequence: sequence, event: pending.take()!))
            }
            signal = state.phase.wake()
        }
        if signal { wake.signal() }
        if let handOff { handOff.resume(returning: pending.take()) }
    }

    /// Records events that never reached this sink (rejected by the bus before delivery), and wakes
    /// its worker to report them.
    func noteLoss(_ reason: DropReason) {
        guard isSink else { return }
        let signal = state.withLock { state -> Bool in
            state.unreportedLosses[reason, default: 0] += 1
            return state.phase.wake()
        }
        if signal { wake.signal() }
    }

    // MARK: Flush, stop, cancel

    /// Registers `resume` to run once everything accepted so far is delivered (and, for a sink, committed).
    /// Returns `false` when there is nothing to wait for; `resume` is then not called.
    func addFlushWaiter(_ resume: @escaping @Sendable () -> Void) -> Bool {
        var signal = false
        let added = state.withLock { state -> Bool in
            let target = state.accepted
            if state.isSettled(below: target) { return false }
            state.waiters.append(Waiter(target: target, resume: resume))
            signal = state.phase.wake()
            return true
        }
        if signal { wake.signal() }
        return added
    }

    /// Asks the worker to deliver what is queued, commit, and exit; `onExit` runs when it has.
    func stop(onExit: (@Sendable () -> Void)?) {
        var stream: CheckedContinuation<MeasurementEvent?, Never>?
        let kept = state.withLock { state -> Bool in
            if state.buffer.isEmpty {
                stream = state.streamWaiter
                state.streamWaiter = nil
            }
            return state.phase.stop(onExit: onExit, hasWorker: !isStream)
        }
        stream?.resume(returning: nil)
        wake.signal()
        if !kept { onExit?() }
    }

    /// Stops delivery now: queued events are discarded, and no handler call starts after this returns
    /// (unless it is called from inside the handler, whose current call then completes).
    func cancel() {
        cancelledFlag.store(true, ordering: .sequentiallyConsistent)
        var ready: [@Sendable () -> Void] = []
        var stream: CheckedContinuation<MeasurementEvent?, Never>?
        state.withLock { state in
            state.phase.cancel()
            _ = state.buffer.removeAll()
            state.streamTaken.removeAll()
            state.streamIndex = 0
            ready = state.waiters.map(\.resume)
            state.waiters.removeAll()
            stream = state.streamWaiter
            state.streamWaiter = nil
        }
        wake.signal()
        stream?.resume(returning: nil)
        for action in ready { action() }
        if !isCurrentWorker {
            deliveryLock.lock()
            deliveryLock.unlock()
        }
    }

    func statistics() -> ObserverStatistics {
        state.withLock { state in
            ObserverStatistics(
                label: label, delivered: state.delivered,
                buffered: state.buffer.count + state.inFlightCount + (state.streamTaken.count - state.streamIndex),
                capacity: capacity,
                dropped: state.dropped)
        }
    }

    // MARK: Async sequence side

    /// The next event for an async-sequence subscription, or `nil` once it is cancelled or stopped and drained.
    func nextStreamEvent() async -> MeasurementEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<MeasurementEvent?, Never>) in
                let immediate = state.withLock { state -> MeasurementEvent?? in
                    if let event = state.popStreamEvent() {
                        state.delivered += 1
                        return .some(event)
                    }
                    if !state.phase.acceptsEvents || Task.isCancelled { return .some(nil) }
                    state.streamWaiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            cancel()
        }
    }
}

extension EventInbox where Element == Subscription.Queued {
    var firstSequence: UInt64? { first?.sequence }
}
