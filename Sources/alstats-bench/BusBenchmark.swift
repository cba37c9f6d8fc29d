import Foundation
import MeasurementEvents

/// `alstats-bench bus`: the cost of `post` on the caller's thread with a memory sink attached, against
/// `NotificationCenter.post` of the same event (prebuilt userInfo, one no-op observer), in one run; and
/// resident memory while a slow observer falls behind.
enum BusBenchmark {
    static let suite = "bus"

    /// Runs the suite. Longer than 60 lines on purpose: one measured sequence, each phase beside its baseline,
    /// read top to bottom in the order the figures are printed.
    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let posts = Int(arguments.values["posts"] ?? "") ?? (arguments.quick ? 200_000 : 1_000_000)
        let fields: [String: String] = [
            FieldName.outputURL:
                "example://article/42?al_applink_data=%7B%22target_url%22%3A%22https%3A%2F%2Fexample.com%22%7D",
            FieldName.outputURLScheme: "example",
            FieldName.sourceURL: "https://example.com/article/42",
            FieldName.sourceURLHost: "example.com",
            FieldName.success: "1",
            FieldName.type: "app",
            FieldName.version: "1.0",
            FieldName.ref: "newsfeed",
        ]

        // Warm both paths, then measure them alternately in rounds so that neither gets a quieter machine.
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink(keepsEvents: false)
        bus.attach(sink, options: ObserverOptions(label: "memory", bufferCapacity: 65_536))
        let center = NotificationCenter()
        let name = Notification.Name("com.parse.bolts.measurement_event")
        let observer = center.addObserver(forName: name, object: nil, queue: nil) { _ in }
        let userInfo: [AnyHashable: Any] = ["event_name": EventName.navOut, "event_args": fields]

        var ours = [UInt64](repeating: 0, count: posts)
        var theirs = [UInt64](repeating: 0, count: posts)
        let round = 10_000
        var done = 0
        while done < posts {
            let count = min(round, posts - done)
            for index in done..<done + count {
                let start = nowNanoseconds()
                bus.post(EventName.navOut, fields: fields)
                ours[index] = nowNanoseconds() &- start
            }
            bus.flush()  // not timed: keeps the sink's buffer from filling between rounds
            for index in done..<done + count {
                let start = nowNanoseconds()
                center.post(name: name, object: nil, userInfo: userInfo)
                theirs[index] = nowNanoseconds() &- start
            }
            done += count
        }
        center.removeObserver(observer)
        bus.close()
        // Each sample includes one reading of the clock; its cost (the median of empty readings) is taken
        // off both sides alike, so that the ratio compares the posts, not the timer.
        let overhead = timerOverhead()
        for index in 0..<posts {
            ours[index] = ours[index] > overhead ? ours[index] - overhead : 0
            theirs[index] = theirs[index] > overhead ? theirs[index] - overhead : 0
        }
        let statistics = bus.statistics
        let lost = statistics.totalDropped
        ours.sort()
        theirs.sort()
        let baseline = "NotificationCenter.post"
        var measures = [
            Measure.compared(
                suite: suite, name: "post_p50_ns", value: percentile(ours, 0.5), unit: "ns", baseline: baseline,
                baselineValue: percentile(theirs, 0.5), goal: "ratio <= 0.5", check: { $0 <= 0.5 }),
            Measure.compared(
                suite: suite, name: "post_p99_ns", value: percentile(ours, 0.99), unit: "ns", baseline: baseline,
                baselineValue: percentile(theirs, 0.99), goal: "value <= 2000 ns",
                check: { _ in percentile(ours, 0.99) <= 2_000 }),
            Measure.absolute(
                suite: suite, name: "timer_overhead_ns", value: Double(overhead), unit: "ns",
                goal: "subtracted from every sample above", met: true),
            Measure.absolute(
                suite: suite, name: "posts_lost", value: Double(lost), unit: "events",
                goal: "0 with a flush every \(round) posts", met: lost == 0 && sink.committedCount == posts),
        ]
        if arguments.values["memory"] != "no" {
            measures += slowObserverMemory(events: arguments.quick ? 200_000 : 1_000_000)
        }
        return measures
    }

    /// The median cost of one timed empty interval (two clock readings), in nanoseconds.
    static func timerOverhead() -> UInt64 {
        var samples = [UInt64](repeating: 0, count: 200_000)
        for index in samples.indices {
            let start = nowNanoseconds()
            samples[index] = nowNanoseconds() &- start
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    /// Posts to a bus whose only observer is slow and checks that resident memory stays within what its
    /// buffer can hold, and that every event is either delivered, buffered or counted as dropped.
    static func slowObserverMemory(events: Int) -> [Measure] {
        let capacity = 10_000
        let bus = MeasurementEventBus()
        let token = bus.addObserver(options: ObserverOptions(label: "slow", bufferCapacity: capacity)) { _ in
            usleep(200)
        }
        let growth = SlowConsumerLoad.post(events, to: bus)
        let statistics = bus.statistics
        token.cancel()
        let observer = statistics.observers.first
        let accounted =
            (observer?.delivered ?? 0) + (observer?.buffered ?? 0)
            + (observer?.dropped.values.reduce(0, +) ?? 0)
        let bound = SlowConsumerLoad.memoryBound(capacity: capacity)
        return [
            Measure.absolute(
                suite: suite, name: "slow_observer_rss_growth_bytes", value: growth, unit: "bytes",
                goal: "<= \(Int(bound)) (2 x \(capacity) buffered events)", met: growth <= bound),
            Measure.absolute(
                suite: suite, name: "slow_observer_unaccounted_events", value: Double(events - accounted),
                unit: "events", goal: "0 (delivered + buffered + dropped = posted)", met: accounted == events),
        ]
    }
}
