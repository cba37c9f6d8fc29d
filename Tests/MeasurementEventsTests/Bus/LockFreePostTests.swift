import Dispatch
import Foundation
import Synchronization
import Testing

@testable import MeasurementEvents

/// What the lock-free ring and the sleep handshake between posters and consumers must keep: the exact bound,
/// flushes racing with posts, a close racing with posters, and a consumer woken for every event it slept
/// through. Bounded by completion (a wait over a minute is reported as a hang), never by time.
struct LockFreePostTests {
    /// Options whose worker announces sleep as soon as it finds nothing to do, so that every post that finds
    /// it idle goes through the wake-up handshake.
    static func sleepy(_ label: String, capacity: Int = 100_000, overflow: OverflowPolicy = .dropNewest)
        -> ObserverOptions
    {
        var options = ObserverOptions(label: label, bufferCapacity: capacity, overflow: overflow)
        options.idleNaps = 0
        return options
    }

    @Test(arguments: [1, 8, 10], [OverflowPolicy.dropNewest, .dropOldest])
    func aBufferHoldsExactlyItsCapacityAndCountsEveryEventBeyondIt(capacity: Int, overflow: OverflowPolicy) {
        let bus = MeasurementEventBus()
        let gate = Gate()
        let recorder = Recorder()
        let first = StateLock(true)
        let options = ObserverOptions(label: "slow", bufferCapacity: capacity, overflow: overflow)
        bus.addObserver(options: options) { event in
            let isFirst = first.withLock { isFirst in
                defer { isFirst = false }
                return isFirst
            }
            if isFirst { gate.pass() }
            recorder.record(event)
        }
        bus.post("e", fields: ["n": "0"])
        gate.waitUntilEntered()  // event 0 is in the handler; the buffer is empty
        for n in 1...capacity { bus.post("e", fields: ["n": "\(n)"]) }
        let full = bus.statistics.observers[0]
        #expect(full.dropped.isEmpty, "\(capacity) events fit in a buffer of \(capacity)")
        #expect(full.buffered == capacity + 1)
        for n in capacity + 1...capacity + 5 { bus.post("e", fields: ["n": "\(n)"]) }
        #expect(bus.statistics.observers[0].dropped == [.bufferFull: 5])
        #expect(bus.statistics.observers[0].buffered == capacity + 1)
        gate.open()
        bus.flush()
        let kept = overflow == .dropNewest ? Array(1...capacity) : Array(6...capacity + 5)
        #expect(recorder.all.map { $0.fields["n"]! } == ([0] + kept).map(String.init))
        let after = bus.statistics.observers[0]
        #expect(after.delivered == capacity + 1 && after.buffered == 0 && after.dropped == [.bufferFull: 5])
        bus.close()
    }

    @Test func aSinkHearsOfEveryEventItsFullBufferDropped() {
        let bus = MeasurementEventBus()
        let sink = GatedSink()
        bus.attach(sink, options: ObserverOptions(label: "gated", bufferCapacity: 16))
        for n in 0..<1_000 { bus.post("e", fields: ["n": "\(n)"]) }
        sink.open()
        bus.flush()
        let statistics = bus.statistics.observers[0]
        let dropped = statistics.dropped[.bufferFull] ?? 0
        #expect(dropped >= 1_000 - 2 * 16, "at most the buffer and one batch were kept")
        #expect(statistics.delivered + dropped == 1_000)
        #expect(sink.memory.committedCount == statistics.delivered)
        #expect(sink.memory.losses == [.bufferFull: dropped], "the flush waited until the sink heard of them")
        bus.close()
    }

    /// Each poster flushes after each of its rounds while the others keep posting: its flush returns only once
    /// every event it posted has reached the observer and been committed by the sink.
    @Test(arguments: [0, SubscriptionWorker.spinRounds])
    func aFlushAmongConcurrentPostsWaitsForEveryEventItsCallerPosted(idleNaps: Int) {
        let bus = MeasurementEventBus()
        let producers = 4
        let rounds = 10
        let perRound = 300
        let seen = StateLock([Int](repeating: 0, count: producers))
        var options = ObserverOptions(label: "counting", bufferCapacity: 100_000)
        options.idleNaps = idleNaps
        bus.addObserver(options: options) { event in
            let producer = Int(event.fields["p"]!)!
            seen.withLock { $0[producer] += 1 }
        }
        let sink = MemoryEventSink(
            commitPolicy: SinkCommitPolicy(maximumEvents: 1_000_000, maximumDelay: .seconds(3_600)))
        options.label = "sink"
        bus.attach(sink, options: options)
        let shortfalls = StateLock<[String]>([])
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for round in 1...rounds {
                for n in 0..<perRound { bus.post("e", fields: ["p": "\(producer)", "n": "\(n)"]) }
                bus.flush()
                let observed = seen.withLock { $0[producer] }
                let committed = sink.events.count { $0.fields["p"] == "\(producer)" }
                if observed < round * perRound || committed < round * perRound {
                    shortfalls.withLock {
                        $0.append("producer \(producer) round \(round): seen \(observed), committed \(committed)")
                    }
                }
            }
        }
        #expect(shortfalls.withLock { $0 }.isEmpty)
        #expect(seen.withLock { $0 } == [Int](repeating: rounds * perRound, count: producers))
        #expect(bus.statistics.totalDropped == 0)
        bus.close()
    }

    /// Posters run until the bus refuses them while another thread closes it: every accepted event reaches
    /// every consumer exactly once and in each poster's order, and every later post is counted as refused.
    @Test func closingWhilePostersRunDeliversEveryAcceptedEventOnceAndCountsTheRest() async {
        let bus = MeasurementEventBus()
        let producers = 3
        let perProducer = 20_000
        let observed = BusStressTests.OrderChecker()
        let ids = StateLock(Set<EventID>())
        bus.addObserver(options: Self.sleepy("all")) { event in
            observed.record(event)
            ids.withLock { _ = $0.insert(event.id) }
        }
        let small = BusStressTests.OrderChecker()
        bus.addObserver(options: Self.sleepy("small", capacity: 16, overflow: .dropOldest)) { small.record($0) }
        let sink = MemoryEventSink(commitPolicy: SinkCommitPolicy(maximumEvents: 256, maximumDelay: .seconds(3_600)))
        bus.attach(sink, options: Self.sleepy("sink"))
        let stream = bus.events(options: ObserverOptions(label: "stream", bufferCapacity: 100_000))
        let streamed = Task {
            let checker = BusStressTests.OrderChecker()
            for await event in stream { checker.record(event) }
            return (checker.count, checker.outOfOrder)
        }
        let accepted = StateLock(0)
        let started = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        Thread.startNamed("closer") {
            started.wait()
            bus.close()
            closed.signal()
        }
        DispatchQueue.concurrentPerform(iterations: producers) { worker in
            var mine = 0
            for number in 0..<perProducer {
                if number == 1_000, worker == 0 { started.signal() }
                guard bus.post("close", fields: ["p": "\(worker)", "n": "\(number)"]) != nil else { break }
                mine += 1
            }
            accepted.withLock { $0 += mine }
        }
        closed.wait()
        let kept = accepted.withLock { $0 }
        let statistics = bus.statistics
        #expect(statistics.accepted == kept)
        #expect(statistics.posted == kept + (statistics.rejected[.busClosed] ?? 0))
        #expect(observed.count == kept && observed.outOfOrder == 0)
        #expect(ids.withLock { $0.count } == kept, "no event delivered twice")
        #expect(sink.committedCount == kept && sink.isClosed)
        #expect(small.outOfOrder == 0)
        let (streamedCount, streamedDisorder) = await streamed.value
        #expect(streamedCount == kept && streamedDisorder == 0)
        #expect(bus.post("late") == nil)
    }

    /// A handler, a sink and an async sequence that each go to sleep after every event, and one poster that
    /// waits for all three before the next post: a wake-up lost by the handshake would hang here.
    @Test func consumersThatSleepAfterEveryEventAreWokenForEachPost() async {
        let bus = MeasurementEventBus()
        let rounds = 2_000
        let handled = DispatchSemaphore(value: 0)
        bus.addObserver(options: Self.sleepy("handler")) { _ in handled.signal() }
        let sink = SignallingSink(
            commitPolicy: SinkCommitPolicy(maximumEvents: 1_000_000, maximumDelay: .seconds(3_600)))
        bus.attach(sink, options: Self.sleepy("sink"))
        let streamed = DispatchSemaphore(value: 0)
        let stream = bus.events(options: ObserverOptions(label: "stream", bufferCapacity: 16))
        // The consumer runs on a queue of its own: on the cooperative pool (two threads on two cores) it waited out
        // the five minutes below while other tests held both threads with blocking work (the CLI tests' processes,
        // under ThreadSanitizer), which is no lost wake-up.
        let consumer = Task(executorPreference: SerialQueueExecutor(label: "stream-consumer")) {
            var count = 0
            for await _ in stream {
                count += 1
                streamed.signal()
            }
            return count
        }
        // The poster runs on a thread of its own, so that it never holds up the concurrency pool that runs the
        // async sequence's consumer. A wait that passes five minutes is a hang, not a slow run.
        let hung = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            Thread.startNamed("pinger") {
                for round in 0..<rounds {
                    bus.post("ping", fields: ["n": "\(round)"])
                    let deadline = DispatchTime.now() + .seconds(300)
                    guard handled.wait(timeout: deadline) == .success, sink.awaitWrites(1),
                        streamed.wait(timeout: deadline) == .success
                    else { return continuation.resume(returning: round) }
                }
                continuation.resume(returning: nil)
            }
        }
        #expect(hung == nil, "a consumer was not woken for event \(hung ?? -1)")
        await bus.flush()
        #expect(sink.memory.committedCount == rounds)
        await bus.close()
        #expect(await consumer.value == rounds)
        #expect(bus.statistics.totalDropped == 0)
    }
}
