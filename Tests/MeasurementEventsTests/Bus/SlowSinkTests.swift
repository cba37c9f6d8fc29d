import Dispatch
import Testing

@testable import MeasurementEvents

/// A sink whose writes wait until the test opens its gate: the slowest sink there is.
final class GatedSink: EventSink {
    let commitPolicy = SinkCommitPolicy(maximumEvents: 1_024, maximumDelay: .seconds(3_600))
    let memory = MemoryEventSink(commitPolicy: .standard, keepsEvents: false)
    private let gate = DispatchSemaphore(value: 0)

    /// Lets every write through from now on.
    func open() { gate.signal() }

    func write(_ events: [MeasurementEvent]) throws {
        gate.wait()
        gate.signal()
        try memory.write(events)
    }
    func commit() throws { try memory.commit() }
    func recordLosses(_ losses: [DropReason: Int]) throws { try memory.recordLosses(losses) }
    func close() throws { try memory.close() }
}

/// Memory stays bounded by the configured buffer when a sink stalls, and every event it misses is counted.
/// (The 10-million-event version, with resident memory, is `alstats-bench reliability`.)
struct SlowSinkTests {
    @Test func aStalledSinkHoldsAtMostTwiceItsBufferAndEveryDropIsCounted() {
        let bus = MeasurementEventBus()
        let sink = GatedSink()
        let capacity = 1_000
        bus.attach(sink, options: ObserverOptions(label: "slow", bufferCapacity: capacity))
        let producers = 4
        let perProducer = 50_000
        DispatchQueue.concurrentPerform(iterations: producers) { producer in
            for number in 0..<perProducer { bus.post("slow", fields: ["p": "\(producer)", "n": "\(number)"]) }
        }
        let peak = bus.statistics.observers[0].buffered
        #expect(peak <= 2 * capacity)
        let stalled = bus.statistics.observers[0]
        #expect(stalled.delivered + stalled.buffered + (stalled.dropped[.bufferFull] ?? 0) == producers * perProducer)

        sink.open()
        bus.flush()
        let statistics = bus.statistics.observers[0]
        let dropped = statistics.dropped[.bufferFull] ?? 0
        #expect(dropped >= producers * perProducer - 2 * capacity)
        #expect(statistics.delivered + dropped == producers * perProducer)
        #expect(statistics.buffered == 0)
        #expect(sink.memory.committedCount == statistics.delivered)
        #expect(sink.memory.losses[.bufferFull] == dropped)
        bus.close()
    }
}
