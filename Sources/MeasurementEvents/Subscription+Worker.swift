import Dispatch
import Foundation

/// The delivery thread of a handler or sink subscription.
///
/// It takes everything queued at once (an O(1) swap, so posters barely wait for the lock), delivers it
/// in order, and for a sink writes it in chunks that fill up to the commit size, committing when the
/// policy says so, when a flush waits, and before it exits.
extension Subscription {
    /// Starts the delivery thread.
    func startWorker() {
        let thread = Thread { [self] in runWorker() }
        thread.name = "alstats.bus.\(label)"
        thread.start()
    }

    private enum Step {
        case deliver
        case commit
        case sleep
        case spin
        case reportLosses
        case exit
    }

    /// How many naps an idle worker takes before it sleeps until woken (about 2 ms in all).
    static let spinRounds = 20

    /// How long one nap lasts; events posted meanwhile wait at most this long.
    static let napInterval = DispatchTimeInterval.microseconds(100)

    private func runWorker() {
        workerThreadID.store(Subscription.currentThreadID(), ordering: .sequentiallyConsistent)
        let sink: (any EventSink)?
        if case .sink(let attached) = consumer { sink = attached } else { sink = nil }
        let commitSize = sink?.commitPolicy.maximumEvents ?? .max
        let maximumDelay = sink.map { sink -> DispatchTimeInterval in
            let (seconds, attoseconds) = sink.commitPolicy.maximumDelay.components
            return .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        }
        var taken: [Queued] = []
        var chunk: [MeasurementEvent] = []
        var uncommitted = 0
        var commitDeadline: DispatchTime?

        func commit() {
            guard let sink, uncommitted > 0 else { return }
            let succeeded = (try? sink.commit()) != nil
            let count = uncommitted
            uncommitted = 0
            commitDeadline = nil
            let ready = state.withLock { state -> [@Sendable () -> Void] in
                state.uncommittedFirst = nil
                if !succeeded {
                    state.delivered -= count
                    state.dropped[.sinkError, default: 0] += count
                    state.unreportedLosses[.sinkError, default: 0] += count
                }
                return state.takeSettledWaiters()
            }
            for action in ready { action() }
        }

        func reportLosses(_ losses: [DropReason: Int]) {
            guard let sink, !losses.isEmpty else { return }
            let reported = (try? sink.recordLosses(losses)) != nil
            let ready = state.withLock { state -> [@Sendable () -> Void] in
                // Unreported losses stay with the subscription, to be tried again with the next batch.
                // Not at once: that would spin, and hold every flush, while the database stays locked or full.
                if !reported {
                    state.unreportedLosses.merge(losses, uniquingKeysWith: +)
                    state.lossReportFailed = true
                }
                return state.takeSettledWaiters()
            }
            for action in ready { action() }
        }

        var idleRounds = 0
        while true {
            var losses: [DropReason: Int] = [:]
            let spin = idleRounds < Subscription.spinRounds
            let step = state.withLock { state -> Step in
                if state.cancelled { return .exit }
                if sink != nil, !state.unreportedLosses.isEmpty, !state.lossReportFailed {
                    swap(&losses, &state.unreportedLosses)
                }
                if let first = state.buffer.firstSequence {
                    state.lossReportFailed = false
                    state.inFlightFirst = first
                    state.inFlightCount = state.buffer.count
                    state.buffer.take(into: &taken)
                    return .deliver
                }
                if uncommitted > 0, !state.waiters.isEmpty || state.stopping { return .commit }
                if state.stopping { return .exit }
                if !losses.isEmpty { return .reportLosses }
                if spin { return .spin }
                state.idle = true
                return .sleep
            }
            idleRounds = step == .spin ? idleRounds + 1 : 0
            reportLosses(losses)
            switch step {
            case .exit:
                break
            case .reportLosses:
                continue
            case .spin:
                // Posts come in bursts. Napping briefly without asking to be woken (idle stays false)
                // spares posters the system call that waking a sleeping thread costs, for every event of
                // a burst, and touches the shared lock only once per nap.
                _ = wake.wait(timeout: .now() + Subscription.napInterval)
                continue
            case .commit:
                commit()
                continue
            case .sleep:
                if let deadline = commitDeadline {
                    if wake.wait(timeout: deadline) == .timedOut {
                        state.withLock { $0.idle = false }
                        commit()
                    }
                } else {
                    wake.wait()
                }
                continue
            case .deliver:
                if case .handler(let handler) = consumer {
                    deliver(taken, to: handler)
                } else if let sink {
                    var index = 0
                    while index < taken.count {
                        let end = min(taken.count, index + max(1, commitSize - uncommitted))
                        chunk.removeAll(keepingCapacity: true)
                        for position in index..<end { chunk.append(taken[position].event) }
                        let written = (try? sink.write(chunk)) != nil
                        let (ready, flushWanted) = settle(
                            written: written, count: end - index, first: taken[index].sequence,
                            next: end < taken.count ? taken[end].sequence : nil)
                        for action in ready { action() }
                        if written {
                            uncommitted += end - index
                            if commitDeadline == nil, let maximumDelay { commitDeadline = .now() + maximumDelay }
                        }
                        let overdue = commitDeadline.map { DispatchTime.now() >= $0 } ?? false
                        if uncommitted >= commitSize || flushWanted || overdue { commit() }
                        index = end
                    }
                }
                taken.removeAll(keepingCapacity: true)
                continue
            }
            break
        }

        commit()
        let (ready, exits) = state.withLock { state -> ([@Sendable () -> Void], [@Sendable () -> Void]) in
            state.exited = true
            state.inFlightFirst = nil
            state.inFlightCount = 0
            let ready = state.waiters.map(\.resume)
            state.waiters.removeAll()
            let exits = state.exitWaiters
            state.exitWaiters.removeAll()
            return (ready, exits)
        }
        for action in ready { action() }
        for action in exits { action() }
    }

    /// Calls the handler for each event in order; stops at once when the subscription is cancelled.
    private func deliver(_ taken: [Queued], to handler: @Sendable (MeasurementEvent) -> Void) {
        var count = 0
        for queued in taken {
            if cancelledFlag.load(ordering: .relaxed) { break }
            deliveryLock.lock()
            if !cancelledFlag.load(ordering: .relaxed) {
                handler(queued.event)
                count += 1
            }
            deliveryLock.unlock()
        }
        let ready = state.withLock { state -> [@Sendable () -> Void] in
            state.inFlightFirst = nil
            state.inFlightCount = 0
            state.delivered += count
            return state.takeSettledWaiters()
        }
        for action in ready { action() }
    }

    /// Records the outcome of one chunk written to a sink: `first` is its first sequence number, `next`
    /// the first of what remains in flight. Returns the flush waiters now settled, and whether a flush
    /// is waiting for nothing but a commit.
    private func settle(written: Bool, count: Int, first: UInt64, next: UInt64?)
        -> ([@Sendable () -> Void], Bool)
    {
        state.withLock { state in
            state.inFlightFirst = next
            state.inFlightCount = next == nil ? 0 : state.inFlightCount - count
            if written {
                state.delivered += count
                if state.uncommittedFirst == nil { state.uncommittedFirst = first }
            } else {
                state.dropped[.sinkError, default: 0] += count
                state.unreportedLosses[.sinkError, default: 0] += count
            }
            let ready = state.takeSettledWaiters()
            return (ready, !state.waiters.isEmpty && state.buffer.isEmpty && next == nil)
        }
    }
}
