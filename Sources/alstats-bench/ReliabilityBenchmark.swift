import Foundation
import MeasurementEvents

/// The `reliability` suite: millions of events through the bus into a deliberately slow sink. Resident
/// memory must stay within what the sink's buffer can hold, and every event the sink misses must be counted.
///
///     alstats-bench reliability --events 10000000     # the default size; --quick posts 500,000
enum ReliabilityBenchmark {
    static let suite = "reliability"

    /// A sink that takes 2 ms per write: it falls behind any poster, so its buffer overflows.
    final class SlowSink: EventSink {
        let commitPolicy = SinkCommitPolicy(maximumEvents: 1_024, maximumDelay: .milliseconds(250))
        let memory = MemoryEventSink(commitPolicy: .standard, keepsEvents: false)

        func write(_ events: [MeasurementEvent]) throws {
            usleep(2_000)
            try memory.write(events)
        }
        func commit() throws { try memory.commit() }
        func recordLosses(_ losses: [DropReason: Int]) throws { try memory.recordLosses(losses) }
        func close() throws { try memory.close() }
    }

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let events = Int(arguments.values["events"] ?? "") ?? (arguments.quick ? 500_000 : 10_000_000)
        let capacity = 10_000
        let bus = MeasurementEventBus()
        let sink = SlowSink()
        bus.attach(sink, options: ObserverOptions(label: "slow-sink", bufferCapacity: capacity))
        let growth = SlowConsumerLoad.post(events, to: bus, sampleEvery: 50_000)
        bus.flush()
        let observer = bus.statistics.observers[0]
        bus.close()
        let dropped = observer.dropped.values.reduce(0, +)
        let accounted = observer.delivered + observer.buffered + dropped
        let bound = SlowConsumerLoad.memoryBound(capacity: capacity)
        let recorded = sink.memory.losses.values.reduce(0, +)
        let stored = sink.memory.committedCount
        return [
            Measure.absolute(
                suite: suite, name: "slow_sink_rss_growth_bytes", value: growth, unit: "bytes",
                goal: "<= \(Int(bound)) (2 x \(capacity) buffered events, \(events) posted)", met: growth <= bound),
            Measure.absolute(
                suite: suite, name: "slow_sink_unaccounted_events", value: Double(events - accounted),
                unit: "events", goal: "0 (delivered + buffered + dropped = posted)", met: accounted == events),
            Measure.absolute(
                suite: suite, name: "slow_sink_dropped_not_recorded", value: Double(dropped - recorded),
                unit: "events", goal: "0 (every drop reported to the sink)", met: recorded == dropped),
            Measure.absolute(
                suite: suite, name: "slow_sink_delivered_not_stored", value: Double(observer.delivered - stored),
                unit: "events", goal: "0", met: observer.delivered == stored),
        ]
    }
}
