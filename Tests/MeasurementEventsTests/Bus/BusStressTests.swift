import Dispatch
import Testing

@testable import MeasurementEvents

/// Many threads at once on one bus: producers, observers added and cancelled, flushes and a close racing
/// with posts. Bounded by completion, never by time; CI also runs them under ThreadSanitizer.
struct BusStressTests {
    /// Counts events and checks that each producer's events arrive in the order it posted them.
    final class OrderChecker: Sendable {
        private let state = StateLock<(count: Int, last: [String: Int], outOfOrder: Int)>((0, [:], 0))
        func record(_ event: MeasurementEvent) {
            let producer = event.fields["p"] ?? "?"
            let number = Int(event.fields["n"] ?? "") ?? -1
            state.withLock { state in
                state.count += 1
                if number <= state.last[producer, default: -1] { state.outOfOrder += 1 }
                state.last[producer] = number
            }
        }
        var count: Int { state.withLock { $0.count } }
        var outOfOrder: Int { state.withLock { $0.outOfOrder } }
    }

    @Test func producersWithObserversComingAndGoingLoseNothingWhereBuffersSufficeAndCountEveryDrop() {
        let bus = MeasurementEventBus()
        let producers = 6
        let perProducer = 10_000
        let total = producers * perProducer
        let steady = OrderChecker()
        bus.addObserver(options: ObserverOptions(label: "steady", bufferCapacity: total)) { steady.record($0) }
        // Small buffers that overflow: what they miss must be counted, exactly.
        let small = (0..<3).map { _ in OrderChecker() }
        for (index, checker) in small.enumerated() {
            bus.addObserver(
                options: ObserverOptions(
                    label: "small\(index)", bufferCapacity: 32, overflow: index == 0 ? .dropOldest : .dropNewest)
            ) { checker.record($0) }
        }
        let sink = MemoryEventSink(commitPolicy: SinkCommitPolicy(maximumEvents: 512, maximumDelay: .seconds(3_600)))
        bus.attach(sink, options: ObserverOptions(label: "sink", bufferCapacity: total))

        let churnDisorder = StateLock(0)
        DispatchQueue.concurrentPerform(iterations: producers + 2) { worker in
            if worker < producers {
                for number in 0..<perProducer { bus.post("stress", fields: ["p": "\(worker)", "n": "\(number)"]) }
            } else if worker == producers {
                // Observers added and cancelled while posts go on, some from inside their own handler.
                for round in 0..<200 {
                    let churn = OrderChecker()
                    let token = bus.addObserver(options: ObserverOptions(label: "churn", bufferCapacity: 8)) {
                        churn.record($0)
                    }
                    if round % 2 == 0 { bus.flush() }
                    token.cancel()
                    churnDisorder.withLock { $0 += churn.outOfOrder }
                }
            } else {
                for _ in 0..<50 { bus.flush() }
            }
        }
        bus.flush()

        #expect(churnDisorder.withLock { $0 } == 0)
        let statistics = bus.statistics
        #expect(statistics.posted == total && statistics.accepted == total)
        #expect(steady.count == total && steady.outOfOrder == 0)
        #expect(sink.committedCount == total)
        #expect(statistics.observers.map(\.label) == ["steady", "small0", "small1", "small2", "sink"])
        for (observer, checker) in zip(statistics.observers.dropFirst(), small) {
            #expect(observer.delivered == checker.count)
            #expect(observer.delivered + observer.dropped.values.reduce(0, +) == total, "\(observer)")
            #expect(checker.outOfOrder == 0)
        }
        #expect(statistics.observers[0].dropped.isEmpty && statistics.observers[4].dropped.isEmpty)
        bus.close()
    }

    @Test func flushAndCloseRacingWithPostsDeliverEveryAcceptedEventAndCountTheRest() {
        let bus = MeasurementEventBus()
        let observed = OrderChecker()
        bus.addObserver(options: ObserverOptions(label: "all", bufferCapacity: 100_000)) { observed.record($0) }
        let sink = MemoryEventSink(commitPolicy: SinkCommitPolicy(maximumEvents: 100, maximumDelay: .seconds(3_600)))
        bus.attach(sink, options: ObserverOptions(label: "sink", bufferCapacity: 100_000))
        let producers = 4
        let perProducer = 10_000
        let accepted = StateLock(0)
        DispatchQueue.concurrentPerform(iterations: producers + 2) { worker in
            if worker < producers {
                var mine = 0
                for number in 0..<perProducer {
                    if bus.post("race", fields: ["p": "\(worker)", "n": "\(number)"]) != nil { mine += 1 }
                }
                accepted.withLock { $0 += mine }
            } else if worker == producers {
                for _ in 0..<20 { bus.flush() }
                bus.close()
            } else {
                for _ in 0..<20 { bus.flush() }
            }
        }
        bus.close()  // a second close does nothing and returns
        let statistics = bus.statistics
        let kept = accepted.withLock { $0 }
        #expect(statistics.posted == producers * perProducer)
        #expect(statistics.accepted == kept)
        #expect(statistics.accepted + (statistics.rejected[.busClosed] ?? 0) == statistics.posted)
        #expect(observed.count == kept && observed.outOfOrder == 0)
        #expect(sink.committedCount == kept && sink.isClosed)
    }
}
