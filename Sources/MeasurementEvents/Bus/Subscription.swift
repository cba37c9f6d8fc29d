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
    /// How many short naps an idle worker takes before it announces that it sleeps (see ``SubscriptionWorker``);
    /// tests set 0 to put it through the wake-up handshake after every event.
    var idleNaps = SubscriptionWorker.spinRounds

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
/// Posters and the consumer share no lock: a post pushes the event into ``ring`` (an ``EventRing``, which
/// takes none) and wakes the consumer only when it has announced that it sleeps (``sleeping``). The
/// consumer's bookkeeping (counts, flush waiters, the phase) is behind ``state``, which posters take only on
/// rare paths: an event rejected or truncated by the bus, or a parked async-sequence consumer to resume.
///
/// Sequence numbers: every event the subscription queues gets the next position in its ring; a flush waits
/// until no event with a position below its target is still queued, being delivered, or (for sinks)
/// uncommitted. The design, and why no event is stranded, is in `docs/design/event-bus.md`.
final class Subscription: Sendable {
    enum Consumer: Sendable {
        case handler(@Sendable (MeasurementEvent) -> Void)
        case sink(any EventSink)
        case stream
    }

    struct Queued {
        var sequence: Int
        var event: MeasurementEvent
    }

    struct Waiter {
        var target: Int
        var resume: @Sendable () -> Void
    }

    struct State {
        var delivered = 0
        var dropped: [DropReason: Int] = [:]
        /// How many of the ring's ``Subscription/bufferFullDrops`` are counted in `dropped` (and, for a sink,
        /// in `unreportedLosses`).
        var bufferFullCounted = 0
        var unreportedLosses: [DropReason: Int] = [:]
        /// The sink failed to record the unreported losses (a locked or full database): they wait for the
        /// next batch instead of being retried at once, and flushes do not wait for them.
        var lossReportFailed = false
        var inFlightFirst: Int?
        var inFlightCount = 0
        var uncommittedFirst: Int?
        var phase = Phase.running
        var waiters: [Waiter] = []
        /// A parked async-sequence consumer, resumed to look at the ring again.
        var streamWaiter: CheckedContinuation<Void, Never>?

        /// Counts the buffer-full drops posters have made since the last call (`total` is all of them).
        mutating func absorbDrops(total: Int, isSink: Bool) {
            let new = total - bufferFullCounted
            guard new > 0 else { return }
            bufferFullCounted = total
            dropped[.bufferFull, default: 0] += new
            if isSink { unreportedLosses[.bufferFull, default: 0] += new }
        }

        /// Whether nothing numbered below `target` is still outstanding (queued from `oldestQueued` on, being
        /// delivered, or for a sink uncommitted), and a sink has heard of every loss so far.
        func isSettled(below target: Int, oldestQueued: Int) -> Bool {
            if phase.isFinished { return true }
            guard unreportedLosses.isEmpty || lossReportFailed else { return false }
            var lowest = oldestQueued
            if let inFlightFirst { lowest = min(lowest, inFlightFirst) }
            if let uncommittedFirst { lowest = min(lowest, uncommittedFirst) }
            return lowest >= target
        }

        mutating func takeSettledWaiters(oldestQueued: Int) -> [@Sendable () -> Void] {
            guard !waiters.isEmpty else { return [] }
            var ready: [@Sendable () -> Void] = []
            var waiting: [Waiter] = []
            for waiter in waiters {
                if isSettled(below: waiter.target, oldestQueued: oldestQueued) {
                    ready.append(waiter.resume)
                } else {
                    waiting.append(waiter)
                }
            }
            waiters = waiting
            return ready
        }
    }

    let label: String
    let consumer: Consumer
    let overflow: OverflowPolicy
    let capacity: Int
    /// How many naps the worker takes before it sleeps.
    let idleNaps: Int
    /// The events waiting for the consumer; posters push without a lock.
    let ring: EventRing<MeasurementEvent>
    let state: StateLock<State>
    /// Set by the consumer before it sleeps (a worker on ``wake``, an async sequence in `streamWaiter`);
    /// whoever turns it back to `false` wakes it, exactly once. See ``wakeConsumer()``.
    let sleeping = Atomic<Bool>(false)
    /// Events posters found no room for: each a drop of the new event, or of the oldest under ``OverflowPolicy/dropOldest``.
    let bufferFullDrops = Atomic<Int>(0)
    /// Signalled once for each time a waker takes ``sleeping`` from a sleeping worker.
    let wake = DispatchSemaphore(value: 0)
    /// Held by the worker while it calls the handler for a batch, so that `cancel` from another thread can wait
    /// out the call under way (the worker checks ``cancelledFlag`` before each call). It guards the count of
    /// handler calls made, not `()`: ThreadSanitizer reported the empty value's access outside the lock.
    let deliveryLock = StateLock(0)
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
        self.idleNaps = options.idleNaps
        self.ring = EventRing(capacity: options.bufferCapacity)
        self.state = StateLock(State())
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

    /// Runs `body` on the state with the posters' latest drops counted in.
    func withState<Result>(_ body: (inout State) -> Result) -> Result {
        let drops = bufferFullDrops.load(ordering: .relaxed)
        let isSink = isSink
        return state.withLock { state in
            state.absorbDrops(total: drops, isSink: isSink)
            return body(&state)
        }
    }

    // MARK: Posting side

    /// Queues `event` without taking a lock; called by the bus under its own lock, so that all subscriptions
    /// see one order (the ring would keep each poster's order without it).
    @inline(__always)
    func enqueue(_ event: consuming MeasurementEvent) {
        if let position = ring.claim() {
            ring.publish(event, at: position)
        } else {
            makeRoom(for: event)
        }
        // Sequentially consistent, after the publishing store: see `wakeConsumer()`.
        if sleeping.load(ordering: .sequentiallyConsistent) { wakeConsumer() }
    }

    /// The overflow policy, for a post that found the ring full. Under ``OverflowPolicy/dropOldest`` the
    /// poster pops the oldest event itself (counted as dropped unless the consumer took it first) and claims
    /// again.
    private func makeRoom(for event: consuming MeasurementEvent) {
        switch overflow {
        case .dropNewest:
            bufferFullDrops.add(1, ordering: .relaxed)
        case .dropOldest:
            while true {
                if let position = ring.claim() {
                    ring.publish(event, at: position)
                    return
                }
                if ring.pop() != nil { bufferFullDrops.add(1, ordering: .relaxed) }
            }
        }
    }

    /// Records events that never reached this sink (rejected by the bus before delivery), and wakes
    /// its worker to report them.
    func noteLoss(_ reason: DropReason) {
        guard isSink else { return }
        withState { $0.unreportedLosses[reason, default: 0] += 1 }
        wakeConsumer()
    }

    /// Wakes the consumer if it announced that it sleeps.
    ///
    /// The handshake: a consumer that finds nothing to do sets ``sleeping`` (sequentially consistent), looks
    /// at the ring once more (``EventRing/hasReadyElement``, sequentially consistent) and at its state under
    /// the lock, and only then sleeps. A poster publishes (sequentially consistent) and then reads
    /// ``sleeping``. In the single order of those four operations, either the consumer's second look sees
    /// the event, or the poster's read sees the announcement; whoever then exchanges ``sleeping`` back to
    /// `false` (the consumer itself, taking the announcement back, or one waker) owns the wake-up, so the
    /// worker's semaphore is signalled exactly once per sleep it must leave. Other wakers (a flush, a stop, a
    /// loss) change the state under the lock first, so the consumer sees their change or they see the flag.
    func wakeConsumer() {
        guard sleeping.exchange(false, ordering: .sequentiallyConsistent) else { return }
        if isStream {
            state.withLock { $0.streamWaiter.take() }?.resume()
        } else {
            wake.signal()
        }
    }

    // MARK: Flush, stop, cancel

    /// Registers `resume` to run once everything accepted so far is delivered (and, for a sink, committed).
    /// Returns `false` when there is nothing to wait for; `resume` is then not called.
    func addFlushWaiter(_ resume: @escaping @Sendable () -> Void) -> Bool {
        let target = ring.tailPosition
        let added = withState { state -> Bool in
            if state.isSettled(below: target, oldestQueued: ring.headPosition) { return false }
            state.waiters.append(Waiter(target: target, resume: resume))
            return true
        }
        if added { wakeConsumer() }
        return added
    }

    /// Asks the worker to deliver what is queued, commit, and exit; `onExit` runs when it has.
    func stop(onExit: (@Sendable () -> Void)?) {
        let kept = state.withLock { $0.phase.stop(onExit: onExit, hasWorker: !isStream) }
        wakeConsumer()
        if !kept { onExit?() }
    }

    /// Stops delivery now: queued events are discarded, and no handler call starts after this returns
    /// (unless it is called from inside the handler, whose current call then completes).
    func cancel() {
        cancelledFlag.store(true, ordering: .sequentiallyConsistent)
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            state.phase.cancel()
            while ring.pop() != nil {}
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.resume)
        }
        wakeConsumer()
        for action in ready { action() }
        if !isCurrentWorker { _ = deliveryLock.withLock { $0 } }
    }

    func statistics() -> ObserverStatistics {
        withState { state in
            ObserverStatistics(
                label: label, delivered: state.delivered, buffered: ring.count + state.inFlightCount,
                capacity: capacity, dropped: state.dropped)
        }
    }

    // MARK: Async sequence side

    /// The next event for an async-sequence subscription, or `nil` once it is cancelled or stopped and drained.
    func nextStreamEvent() async -> MeasurementEvent? {
        while true {
            let next = state.withLock { state -> MeasurementEvent?? in
                if let (_, event) = ring.pop() {
                    state.delivered += 1
                    return .some(event)
                }
                return state.phase.acceptsEvents ? .none : .some(nil)
            }
            if let next { return next }
            await parkStream()
        }
    }

    /// Suspends the async-sequence consumer until a post, a stop or a cancel wakes it (at once if the
    /// subscription no longer accepts events, or an event came meanwhile).
    private func parkStream() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let parked = state.withLock { state -> Bool in
                    guard state.phase.acceptsEvents, !Task.isCancelled else { return false }
                    state.streamWaiter = continuation
                    sleeping.store(true, ordering: .sequentiallyConsistent)
                    return true
                }
                guard parked else { return continuation.resume() }
                // The handshake's second look (see `wakeConsumer()`): an event published before the
                // announcement was seen by no poster, so take the announcement back and look again.
                if ring.hasReadyElement { wakeConsumer() }
            }
        } onCancel: {
            cancel()
        }
    }
}
