import Synchronization
import Testing

@testable import MeasurementEvents

/// The subscription's lifecycle: which phases accept events, and who runs the waiters for the worker's exit.
struct SubscriptionPhaseTests {
    /// Counts how many of its closures ran.
    final class Calls: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func closure() -> @Sendable () -> Void { { self.count.add(1, ordering: .relaxed) } }
    }

    @Test func onlyRunningAcceptsEventsAndACancelFinishesIt() {
        var phase = Subscription.Phase.running
        #expect(phase.acceptsEvents && !phase.isFinished && !phase.isStopping && !phase.isCancelled)
        phase.cancel()
        #expect(!phase.acceptsEvents && phase.isFinished && phase.isCancelled)
        phase.cancel()
        #expect(phase.isCancelled, "a second cancel changes nothing")
    }

    @Test func stoppingKeepsTheExitWaitersThroughACancelUntilTheWorkerExits() {
        let calls = Calls()
        var phase = Subscription.Phase.running
        let kept = phase.stop(onExit: calls.closure(), hasWorker: true)
        #expect(kept)
        #expect(phase.isStopping && !phase.acceptsEvents && !phase.isFinished)
        let keptAgain = phase.stop(onExit: calls.closure(), hasWorker: true)
        #expect(keptAgain)
        phase.cancel()
        #expect(phase.isCancelled)
        let waiters = phase.exit()
        #expect(waiters.count == 2)
        for waiter in waiters { waiter() }
        #expect(calls.value == 2)
        #expect(phase.isFinished && !phase.acceptsEvents)
    }

    @Test func stopAfterTheExitOrWithoutAWorkerLeavesTheWaiterToTheCaller() {
        let calls = Calls()
        var exited = Subscription.Phase.exited
        let keptAfterExit = exited.stop(onExit: calls.closure(), hasWorker: true)
        #expect(!keptAfterExit)
        let exitedWaiters = exited.exit()
        #expect(exitedWaiters.isEmpty)
        var stream = Subscription.Phase.running
        let keptWithoutWorker = stream.stop(onExit: calls.closure(), hasWorker: false)
        #expect(!keptWithoutWorker)
        #expect(stream.isStopping)
        let streamWaiters = stream.exit()
        #expect(streamWaiters.isEmpty)
        #expect(calls.value == 0, "the phase never runs a waiter itself")
    }
}
