import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Subscription {
    /// Starts the delivery thread of a handler or sink subscription.
    func startWorker() {
        Thread.startNamed("bus-\(label)") { [self] in
            var worker = SubscriptionWorker(subscription: self)
            worker.run()
        }
    }
}

/// The delivery loop of a handler or sink subscription, on a thread of its own.
///
/// It pops everything queued from the subscription's ring (posters push without a lock, so they never wait
/// for it), delivers it in order, and for a sink writes it in chunks that fill up to the commit size,
/// committing when the policy says so, when a flush waits, and before it exits. What only this thread
/// touches lives here, outside the subscription's lock: the batch taken, the chunk being written, how many
/// written events are uncommitted and when the first of them was written (on the bus's clock).
struct SubscriptionWorker {
    /// What the loop does next, decided under the subscription's lock.
    private enum Step {
        case deliver
        case commit
        case sleep
        case spin
        case reportLosses
        /// Nothing to do, but an event came as the worker announced it would sleep: look again.
        case again
        case exit
    }

    /// How many naps an idle worker takes before it sleeps until woken (about 2 ms in all).
    static let spinRounds = 20

    /// How long one nap lasts, in microseconds; events posted meanwhile wait at most this long.
    static let napMicroseconds: UInt32 = 100

    /// The longest single sleep while a commit is due; the deadline is checked again on the clock after it.
    static let longestDeadlineWait: Int64 = 60_000

    let subscription: Subscription
    let sink: (any EventSink)?
    /// Commit once this many events are written.
    let commitSize: Int
    /// Commit this many milliseconds of the bus's clock after the first uncommitted write.
    let maximumDelay: Int64
    private var taken: [Subscription.Queued] = []
    private var chunk: [MeasurementEvent] = []
    private var uncommitted = 0
    /// When the first uncommitted event was written, in the clock's milliseconds.
    private var uncommittedSince: Int64?
    private var idleRounds = 0

    init(subscription: Subscription) {
        self.subscription = subscription
        if case .sink(let attached) = subscription.consumer { sink = attached } else { sink = nil }
        commitSize = sink?.commitPolicy.maximumEvents ?? .max
        maximumDelay = sink.map { $0.commitPolicy.maximumDelay.saturatingMilliseconds } ?? .max
    }

    /// Delivers until the subscription is cancelled, or stopped and drained; then commits and exits.
    mutating func run() {
        subscription.workerThreadID.store(Subscription.currentThreadID(), ordering: .sequentiallyConsistent)
        while true {
            var losses: [DropReason: Int] = [:]
            let step = nextStep(losses: &losses)
            idleRounds = step == .spin ? idleRounds + 1 : 0
            reportLosses(losses)
            switch step {
            case .exit:
                commit()
                finish()
                return
            case .reportLosses, .again:
                continue
            case .spin:
                // Posts come in bursts. Napping briefly without announcing sleep spares posters the system
                // call that waking a sleeping thread costs, for every event of a burst; nobody signals a nap.
                usleep(SubscriptionWorker.napMicroseconds)
            case .commit:
                commit()
            case .sleep:
                sleep()
            case .deliver:
                if case .handler(let handler) = subscription.consumer {
                    subscription.deliver(taken, to: handler)
                } else if let sink {
                    write(to: sink)
                }
                taken.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Decides the next step under the lock: pops the queued events, and takes the losses a sink is to hear of.
    private mutating func nextStep(losses: inout [DropReason: Int]) -> Step {
        let spin = idleRounds < subscription.idleNaps
        let isSink = sink != nil
        let uncommitted = uncommitted
        let subscription = subscription
        return subscription.withState { state -> Step in
            if state.phase.isCancelled { return .exit }
            if isSink, !state.unreportedLosses.isEmpty, !state.lossReportFailed {
                swap(&losses, &state.unreportedLosses)
            }
            // Popped under the lock, so that a flush sees every event either still in the ring or in flight.
            while taken.count < subscription.capacity, let (position, event) = subscription.ring.pop() {
                taken.append(Subscription.Queued(sequence: position, event: event))
            }
            if let first = taken.first {
                state.lossReportFailed = false
                state.inFlightFirst = first.sequence
                state.inFlightCount = taken.count
                return .deliver
            }
            if uncommitted > 0, !state.waiters.isEmpty || state.phase.isStopping { return .commit }
            if state.phase.isStopping { return .exit }
            if !losses.isEmpty { return .reportLosses }
            if spin { return .spin }
            // Announce the sleep, then look at the ring once more (the handshake of `wakeConsumer()`).
            subscription.sleeping.store(true, ordering: .sequentiallyConsistent)
            guard subscription.ring.hasReadyElement else { return .sleep }
            // Take the announcement back; if a poster took it first, its signal is on the way: sleep takes it.
            return subscription.sleeping.exchange(false, ordering: .sequentiallyConsistent) ? .again : .sleep
        }
    }

    /// Sleeps until woken; while a commit is due, at most until its deadline, and commits if it has passed.
    private mutating func sleep() {
        guard let since = uncommittedSince else {
            subscription.wake.wait()
            return
        }
        let remaining = min(remainingDelay(since: since), SubscriptionWorker.longestDeadlineWait)
        if remaining > 0, subscription.wake.wait(timeout: .now() + .milliseconds(Int(remaining))) == .success {
            return
        }
        // Take the announcement back; if a waker took it first, its signal is on the way: take it too, so that
        // the next sleep does not end at once.
        if !subscription.sleeping.exchange(false, ordering: .sequentiallyConsistent) { subscription.wake.wait() }
        if isCommitOverdue { commit() }
    }

    /// Writes the taken events to the sink in chunks that fill up to the commit size, settling each.
    private mutating func write(to sink: any EventSink) {
        var index = 0
        while index < taken.count {
            let end = min(taken.count, index + max(1, commitSize - uncommitted))
            chunk.removeAll(keepingCapacity: true)
            for position in index..<end { chunk.append(taken[position].event) }
            // The deadline counts from the start of the first uncommitted write (read before it, so that a
            // test that sees the write and then moves the clock moves it past this reading).
            let started = uncommittedSince ?? subscription.clock.nowMilliseconds()
            let written = (try? sink.write(chunk)) != nil
            let (ready, flushWanted) = subscription.settle(
                written: written, count: end - index, first: taken[index].sequence,
                next: end < taken.count ? taken[end].sequence : nil)
            for action in ready { action() }
            if written {
                uncommitted += end - index
                uncommittedSince = started
            }
            if uncommitted >= commitSize || flushWanted || isCommitOverdue { commit() }
            index = end
        }
    }

    /// Commits what the sink has written; a failed commit counts its events as lost to `sink_error`.
    private mutating func commit() {
        guard let sink, uncommitted > 0 else { return }
        let succeeded = (try? sink.commit()) != nil
        let count = uncommitted
        uncommitted = 0
        uncommittedSince = nil
        let ring = subscription.ring
        let ready = subscription.withState { state -> [@Sendable () -> Void] in
            state.uncommittedFirst = nil
            if !succeeded {
                state.delivered -= count
                state.dropped[.sinkError, default: 0] += count
                state.unreportedLosses[.sinkError, default: 0] += count
            }
            return state.takeSettledWaiters(oldestQueued: ring.headPosition)
        }
        for action in ready { action() }
    }

    /// Tells the sink of events that never reached it.
    private func reportLosses(_ losses: [DropReason: Int]) {
        guard let sink, !losses.isEmpty else { return }
        let reported = (try? sink.recordLosses(losses)) != nil
        let ring = subscription.ring
        let ready = subscription.withState { state -> [@Sendable () -> Void] in
            // Unreported losses stay with the subscription, to be tried again with the next batch.
            // Not at once: that would spin, and hold every flush, while the database stays locked or full.
            if !reported {
                state.unreportedLosses.merge(losses, uniquingKeysWith: +)
                state.lossReportFailed = true
            }
            return state.takeSettledWaiters(oldestQueued: ring.headPosition)
        }
        for action in ready { action() }
    }

    /// Marks the subscription exited and runs every flush and exit waiter.
    private func finish() {
        let (ready, exits) = subscription.state.withLock { state in
            state.inFlightFirst = nil
            state.inFlightCount = 0
            let ready = state.waiters.map(\.resume)
            state.waiters.removeAll()
            return (ready, state.phase.exit())
        }
        for action in ready { action() }
        for action in exits { action() }
    }

    // MARK: The commit deadline

    /// Whether the first uncommitted write is `maximumDelay` old on the bus's clock. A clock that went
    /// back (a wall-clock step) counts as overdue: committing early loses nothing, waiting might.
    private var isCommitOverdue: Bool {
        guard let since = uncommittedSince else { return false }
        return remainingDelay(since: since) == 0
    }

    /// Milliseconds of the clock until the commit deadline; 0 once it has passed or the clock went back.
    private func remainingDelay(since: Int64) -> Int64 {
        let now = subscription.clock.nowMilliseconds()
        guard now >= since else { return 0 }
        let elapsed = now - since
        return elapsed >= maximumDelay ? 0 : maximumDelay - elapsed
    }
}

extension Subscription {
    /// Calls the handler for each event in order; stops at once when the subscription is cancelled. The
    /// delivery lock is held for the batch: `cancel` takes it to wait out the call under way, and no call
    /// starts once the cancelled flag is set.
    func deliver(_ taken: [Queued], to handler: @Sendable (MeasurementEvent) -> Void) {
        let count = deliveryLock.withLock { calls -> Int in
            var count = 0
            for queued in taken {
                if cancelledFlag.load(ordering: .relaxed) { break }
                handler(queued.event)
                count += 1
            }
            calls += count
            return count
        }
        let ready = withState { state -> [@Sendable () -> Void] in
            state.inFlightFirst = nil
            state.inFlightCount = 0
            state.delivered += count
            return state.takeSettledWaiters(oldestQueued: ring.headPosition)
        }
        for action in ready { action() }
    }

    /// Records the outcome of one chunk written to a sink: `first` is its first sequence number, `next`
    /// the first of what remains in flight. Returns the flush waiters now settled, and whether a flush
    /// is waiting for nothing but a commit.
    func settle(written: Bool, count: Int, first: Int, next: Int?) -> ([@Sendable () -> Void], Bool) {
        withState { state in
            state.inFlightFirst = next
            state.inFlightCount = next == nil ? 0 : state.inFlightCount - count
            if written {
                state.delivered += count
                if state.uncommittedFirst == nil { state.uncommittedFirst = first }
            } else {
                state.dropped[.sinkError, default: 0] += count
                state.unreportedLosses[.sinkError, default: 0] += count
            }
            let ready = state.takeSettledWaiters(oldestQueued: ring.headPosition)
            return (ready, !state.waiters.isEmpty && ring.isEmpty && next == nil)
        }
    }
}
