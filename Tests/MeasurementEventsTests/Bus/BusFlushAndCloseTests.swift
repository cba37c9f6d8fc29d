import Dispatch
import Synchronization
import Testing

@testable import MeasurementEvents

/// A sink that fails on demand, to check that its failures are counted and never reach posters.
final class FailingSink: EventSink {
    let failWrites = Atomic<Bool>(false)
    let failCommits = Atomic<Bool>(false)
    let memory = MemoryEventSink()
    let commitPolicy = SinkCommitPolicy.standard

    func write(_ events: [MeasurementEvent]) throws {
        if failWrites.load(ordering: .relaxed) { throw Failure() }
        try memory.write(events)
    }
    func commit() throws {
        if failCommits.load(ordering: .relaxed) { throw Failure() }
        try memory.commit()
    }
    func recordLosses(_ losses: [DropReason: Int]) throws { try memory.recordLosses(losses) }
    func close() throws { try memory.close() }

    struct Failure: Error {}
}

struct BusFlushAndCloseTests {
    @Test func flushReturnsAfterEveryObserverHasTheEventsAndSinksCommitted() {
        let bus = MeasurementEventBus()
        let recorder = Recorder()
        bus.addObserver { recorder.record($0) }
        // A large commit size and a long delay: only the flush can have committed.
        let sink = MemoryEventSink(
            commitPolicy: SinkCommitPolicy(maximumEvents: 1_000_000, maximumDelay: .seconds(3_600)))
        bus.attach(sink)
        for round in 1...5 {
            for _ in 0..<1_000 { bus.post("e") }
            bus.flush()
            #expect(recorder.count == round * 1_000)
            #expect(sink.committedCount == round * 1_000)
        }
        bus.close()
    }

    @Test func aSinkCommitsEveryMaximumEvents() {
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink(commitPolicy: SinkCommitPolicy(maximumEvents: 10, maximumDelay: .seconds(3_600)))
        bus.attach(sink)
        for _ in 0..<100 { bus.post("e") }
        bus.flush()
        #expect(sink.committedCount == 100)
        #expect(sink.commits >= 10)
        bus.close()
    }

    @Test func flushFromInsideAnObserverDoesNotDeadlock() {
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink()
        bus.attach(sink)
        let flushed = StateLock(0)
        bus.addObserver { _ in
            bus.flush()  // waits for the sink, not for this observer itself
            flushed.withLock { $0 += 1 }
        }
        for _ in 0..<10 { bus.post("e") }
        bus.flush()
        #expect(flushed.withLock { $0 } == 10)
        bus.close()
    }

    /// A flush that waited for an event that never comes would hang. The wait is bounded on this thread and the
    /// completion is the one `flush() async` resumes with, so the check does not depend on when the concurrency pool
    /// runs this test again: a `.timeLimit` on an async body failed once in a TSan run on 2 cores, where the resumed
    /// test waited more than a minute behind others for a thread. The async flush itself runs in `BusDeliveryTests`.
    @Test func flushWithNothingPostedReturnsAtOnce() {
        let bus = MeasurementEventBus()
        bus.addObserver { _ in }
        let flushed = DispatchSemaphore(value: 0)
        let onThisThread = StateLock(false)
        let caller = Subscription.currentThreadID()
        bus.whenFlushed {
            onThisThread.withLock { $0 = Subscription.currentThreadID() == caller }
            flushed.signal()
        }
        #expect(flushed.wait(timeout: .now() + .seconds(30)) == .success)
        #expect(onThisThread.withLock { $0 }, "with nothing posted, the flush completes without waiting for a worker")
        let statistics = bus.statistics
        #expect(statistics.posted == 0 && statistics.observers.map(\.delivered) == [0])
        bus.close()
    }

    @Test func closeDrainsClosesSinksAndCountsLaterPosts() {
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink(
            commitPolicy: SinkCommitPolicy(maximumEvents: 1_000_000, maximumDelay: .seconds(3_600)))
        bus.attach(sink)
        for _ in 0..<500 { bus.post("e") }
        bus.close()
        #expect(sink.committedCount == 500)
        #expect(sink.isClosed)
        #expect(bus.post("late") == nil)
        #expect(bus.statistics.rejected == [.busClosed: 1])
        bus.close()  // a second close does nothing
    }

    @Test func detachingASinkCommitsWhatIsQueuedAndLeavesItOpen() {
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink(
            commitPolicy: SinkCommitPolicy(maximumEvents: 1_000_000, maximumDelay: .seconds(3_600)))
        let token = bus.attach(sink)
        for _ in 0..<200 { bus.post("e") }
        token.cancel()
        #expect(sink.committedCount == 200)
        #expect(!sink.isClosed)
        bus.post("after")
        bus.close()
        #expect(sink.committedCount == 200)
    }

    @Test func sinkFailuresAreCountedAndReportedNotThrownAtPosters() {
        let bus = MeasurementEventBus()
        let sink = FailingSink()
        bus.attach(sink)
        sink.failWrites.store(true, ordering: .relaxed)
        for _ in 0..<10 { #expect(bus.post("e") != nil) }
        bus.flush()
        sink.failWrites.store(false, ordering: .relaxed)
        sink.failCommits.store(true, ordering: .relaxed)
        for _ in 0..<5 { bus.post("e") }
        bus.flush()
        sink.failCommits.store(false, ordering: .relaxed)
        for _ in 0..<3 { bus.post("e") }
        bus.flush()
        let statistics = bus.statistics.observers[0]
        #expect(statistics.dropped == [.sinkError: 15])
        #expect(statistics.delivered == 3)
        #expect(sink.memory.losses == [.sinkError: 15])
        bus.close()
    }

    @Test func aSinkHearsOfBufferDropsAndRejections() {
        let bus = MeasurementEventBus(
            limits: FlatteningLimits(maximumFields: 1, maximumKeyBytes: 64, maximumValueBytes: 64, maximumDepth: 2))
        let sink = MemoryEventSink()
        bus.attach(sink)
        bus.post("x", fields: ["a": "1", "b": "2"])
        bus.post("")
        bus.flush()
        #expect(sink.losses == [.tooManyFields: 1, .emptyName: 1])
        bus.close()
    }

    /// Code that posts on `.shared` and code that observes `.shared` meet on one open bus (other tests may post
    /// there too, so only this test's event name is looked at).
    @Test func anEventPostedOnTheSharedBusReachesASinkAttachedToIt() {
        let sink = MemoryEventSink()
        let token = MeasurementEventBus.shared.attach(sink)
        defer { token.cancel() }
        let name = "shared_bus_test_\(UInt32.random(in: 0 ... .max))"
        #expect(MeasurementEventBus.shared.post(name, fields: ["k": "v"]) != nil)
        MeasurementEventBus.shared.flush()
        #expect(sink.events.filter { $0.name == name }.map { $0.fields["k"] } == ["v"])
    }
}
