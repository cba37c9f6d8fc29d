import Dispatch
import Testing

@testable import MeasurementEvents

/// A sink that signals every write and every commit, so that a test waits for them instead of for time.
final class SignallingSink: EventSink {
    let commitPolicy: SinkCommitPolicy
    let memory = MemoryEventSink()
    private let writes = DispatchSemaphore(value: 0)
    private let commits = DispatchSemaphore(value: 0)

    init(commitPolicy: SinkCommitPolicy) {
        self.commitPolicy = commitPolicy
    }

    func write(_ events: [MeasurementEvent]) throws {
        try memory.write(events)
        for _ in events { writes.signal() }
    }
    func commit() throws {
        try memory.commit()
        commits.signal()
    }
    func recordLosses(_ losses: [DropReason: Int]) throws { try memory.recordLosses(losses) }
    func close() throws { try memory.close() }

    /// Waits until `count` more events are written; `false` if that takes over a minute (a hang, not a timing).
    func awaitWrites(_ count: Int) -> Bool {
        (0..<count).allSatisfy { _ in writes.wait(timeout: .now() + .seconds(60)) == .success }
    }

    /// Waits for one more commit; `false` if that takes over a minute.
    func awaitCommit() -> Bool {
        commits.wait(timeout: .now() + .seconds(60)) == .success
    }
}

/// `SinkCommitPolicy.maximumDelay` runs on the bus's injected clock: tests move the clock instead of sleeping.
struct SinkCommitDelayTests {
    static let policy = SinkCommitPolicy(maximumEvents: 1_000_000, maximumDelay: .milliseconds(250))

    /// A bus on a manual clock with a sink attached, once the sink has written the event "first".
    static func busWithOneWrittenEvent() -> (MeasurementEventBus, ManualEventClock, SignallingSink) {
        let clock = ManualEventClock(milliseconds: 1_763_683_200_000)
        let bus = MeasurementEventBus(clock: clock)
        let sink = SignallingSink(commitPolicy: policy)
        bus.attach(sink)
        bus.post("first")
        #expect(sink.awaitWrites(1))
        return (bus, clock, sink)
    }

    @Test func aSinkCommitsOnceMaximumDelayHasPassedOnTheBusClock() {
        let (bus, clock, sink) = Self.busWithOneWrittenEvent()
        #expect(sink.memory.commits == 0)
        clock.advance(by: 250)
        bus.post("second")
        #expect(sink.awaitCommit())
        #expect(sink.memory.events.first?.name == "first")
        bus.close()
    }

    @Test func aSinkDoesNotCommitBeforeMaximumDelayWhenTheClockHasNotReachedIt() {
        let (bus, clock, sink) = Self.busWithOneWrittenEvent()
        clock.advance(by: 249)
        bus.post("second")
        #expect(sink.awaitWrites(1))
        #expect(sink.memory.commits == 0)
        #expect(sink.memory.committedCount == 0)
        bus.flush()
        #expect(sink.memory.committedCount == 2)
        bus.close()
    }

    @Test func aClockThatGoesBackCommitsAtOnceRatherThanWaiting() {
        let (bus, clock, sink) = Self.busWithOneWrittenEvent()
        clock.advance(by: -60_000)
        bus.post("second")
        #expect(sink.awaitCommit())
        #expect(sink.memory.committedCount >= 1)
        bus.close()
    }

    @Test(arguments: [
        (Duration.milliseconds(250), Int64(250)), (.seconds(3_600), 3_600_000), (.microseconds(1_500), 1),
        (.seconds(-1), 0), (.seconds(Int64.max), .max),
    ])
    func commitDelaysConvertToWholeMillisecondsWithoutOverflow(duration: Duration, milliseconds: Int64) {
        #expect(duration.saturatingMilliseconds == milliseconds)
    }
}
