import Dispatch
import Synchronization
import Testing

@testable import MeasurementEvents

/// Collects what an observer receives, safely from its delivery thread.
final class Recorder: Sendable {
    let events = StateLock<[MeasurementEvent]>([])
    func record(_ event: MeasurementEvent) { events.withLock { $0.append(event) } }
    var all: [MeasurementEvent] { events.withLock { $0 } }
    var count: Int { events.withLock { $0.count } }
}

/// A gate a handler can block on until the test opens it.
final class Gate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    func pass() {
        entered.signal()
        released.wait()
    }
    func waitUntilEntered() { entered.wait() }
    func open() { released.signal() }
}

struct BusDeliveryTests {
    @Test func manyProducersAndObserversLoseNothingAndAgreeOnOneOrder() async {
        let bus = MeasurementEventBus()
        let recorders = (0..<3).map { _ in Recorder() }
        let tokens = recorders.enumerated().map { index, recorder in
            bus.addObserver(options: ObserverOptions(label: "o\(index)", bufferCapacity: 100_000)) {
                recorder.record($0)
            }
        }
        let sink = MemoryEventSink()
        bus.attach(sink, options: ObserverOptions(label: "sink", bufferCapacity: 100_000))
        let producers = 4
        let perProducer = 5_000
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for sequence in 0..<perProducer {
                        bus.post("test", fields: ["producer": "\(producer)", "sequence": "\(sequence)"])
                    }
                }
            }
        }
        await bus.flush()
        let reference = sink.events.map(\.id)
        #expect(reference.count == producers * perProducer)
        #expect(reference == reference.sorted(), "ids are assigned in delivery order")
        for recorder in recorders {
            let received = recorder.all
            #expect(received.map(\.id) == reference, "every observer sees the same order")
            for producer in 0..<producers {
                let sequences = received.filter { $0.fields["producer"] == "\(producer)" }.map {
                    Int($0.fields["sequence"]!)!
                }
                #expect(sequences == Array(0..<perProducer), "each producer's posts arrive in post order")
            }
        }
        #expect(bus.statistics.totalDropped == 0)
        for token in tokens { token.cancel() }
        await bus.close()
    }

    @Test func aFullBufferDropsTheNewestAndCountsEachDropExactly() {
        let bus = MeasurementEventBus()
        let gate = Gate()
        let recorder = Recorder()
        let first = StateLock(true)
        bus.addObserver(options: ObserverOptions(label: "slow", bufferCapacity: 10)) { event in
            if first.withLock({ isFirst in
                defer { isFirst = false }
                return isFirst
            }) {
                gate.pass()
            }
            recorder.record(event)
        }
        bus.post("e", fields: ["n": "0"])
        gate.waitUntilEntered()  // the first event is in the handler; the buffer is empty
        for n in 1...100 { bus.post("e", fields: ["n": "\(n)"]) }
        let during = bus.statistics.observers[0]
        #expect(during.dropped == [.bufferFull: 90])
        #expect(during.buffered == 11, "10 queued and 1 in the handler")
        gate.open()
        bus.flush()
        #expect(recorder.all.map { $0.fields["n"]! } == (0...10).map(String.init))
        let after = bus.statistics
        #expect(after.observers[0].delivered == 11)
        #expect(after.posted == 101)
        #expect(after.totalDropped == 90)
        bus.close()
    }

    @Test func dropOldestKeepsTheMostRecentEvents() {
        let bus = MeasurementEventBus()
        let gate = Gate()
        let recorder = Recorder()
        let first = StateLock(true)
        bus.addObserver(options: ObserverOptions(label: "slow", bufferCapacity: 10, overflow: .dropOldest)) { event in
            if first.withLock({ isFirst in
                defer { isFirst = false }
                return isFirst
            }) {
                gate.pass()
            }
            recorder.record(event)
        }
        bus.post("e", fields: ["n": "0"])
        gate.waitUntilEntered()
        for n in 1...100 { bus.post("e", fields: ["n": "\(n)"]) }
        gate.open()
        bus.flush()
        #expect(recorder.all.map { $0.fields["n"]! } == ["0"] + (91...100).map(String.init))
        #expect(bus.statistics.observers[0].dropped == [.bufferFull: 90])
        bus.close()
    }

    @Test func cancellingFromInsideTheHandlerStopsDelivery() {
        let bus = MeasurementEventBus()
        let recorder = Recorder()
        let token = StateLock<ObservationToken?>(nil)
        let registered = bus.addObserver { event in
            recorder.record(event)
            if recorder.count == 5 { token.withLock { $0 }?.cancel() }
        }
        token.withLock { $0 = registered }
        for n in 0..<50 { bus.post("e", fields: ["n": "\(n)"]) }
        bus.flush()
        #expect(recorder.count == 5)
        bus.close()
    }

    @Test func noHandlerCallStartsOrIsUnderWayAfterCancelReturns() {
        let bus = MeasurementEventBus()
        let gate = Gate()
        let calls = StateLock(0)
        let inCall = Atomic<Bool>(false)
        let token = bus.addObserver { _ in
            inCall.store(true, ordering: .sequentiallyConsistent)
            let count = calls.withLock {
                $0 += 1
                return $0
            }
            if count == 1 { gate.pass() }
            inCall.store(false, ordering: .sequentiallyConsistent)
        }
        for _ in 0..<20 { bus.post("e") }
        gate.waitUntilEntered()
        let cancelled = DispatchSemaphore(value: 0)
        let inCallWhenCancelReturned = Atomic<Bool>(true)
        DispatchQueue.global().async {
            token.cancel()  // waits for a call in progress, if any
            inCallWhenCancelReturned.store(
                inCall.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
            cancelled.signal()
        }
        gate.open()
        cancelled.wait()
        let atCancel = calls.withLock { $0 }
        for _ in 0..<20 { bus.post("e") }
        bus.flush()
        let wasInCall = inCallWhenCancelReturned.load(ordering: .sequentiallyConsistent)
        #expect(!wasInCall)
        #expect(calls.withLock { $0 } == atCancel)
        #expect(atCancel < 20 + 1)
        bus.close()
    }

    @Test func interceptorsRunInOrderAndMayDropCounted() {
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink()
        bus.attach(sink)
        bus.addInterceptor(label: "first") { event in
            event.fields["trail", default: ""] += "1"
            return .keep
        }
        bus.addInterceptor(label: "second") { event in
            event.fields["trail", default: ""] += "2"
            return event.name == "secret" ? .drop("policy") : .keep
        }
        #expect(bus.post("kept") != nil)
        #expect(bus.post("secret") == nil)
        bus.flush()
        #expect(sink.events.map(\.name) == ["kept"])
        #expect(sink.events.first?.fields["trail"] == "12")
        #expect(bus.statistics.rejected == ["policy": 1])
        #expect(sink.losses == ["policy": 1])
        bus.close()
    }

    @Test func limitsRejectOrTruncateAndCount() {
        let limits = FlatteningLimits(maximumFields: 2, maximumKeyBytes: 8, maximumValueBytes: 20, maximumDepth: 2)
        let bus = MeasurementEventBus(limits: limits)
        let sink = MemoryEventSink()
        bus.attach(sink)
        #expect(bus.post("many", fields: ["a": "1", "b": "2", "c": "3"]) == nil)
        #expect(bus.post("longkey", fields: ["much-too-long": "1"]) == nil)
        #expect(bus.post("", fields: [:]) == nil)
        #expect(bus.post("deep", values: ["a": ["b": ["c": ["d": 1]]]]) == nil)
        #expect(bus.post("long", fields: ["v": String(repeating: "x", count: 50)]) != nil)
        bus.flush()
        let statistics = bus.statistics
        #expect(statistics.rejected == [.tooManyFields: 1, .keyTooLong: 1, .emptyName: 1, .tooDeep: 1])
        #expect(statistics.truncatedValues == 1)
        #expect(sink.events.count == 1)
        #expect(sink.events[0].fields["v"]!.hasSuffix(FlatteningLimits.truncationMarker))
        bus.close()
    }

    @Test func postWithValuesFlattens() {
        let bus = MeasurementEventBus(clock: ManualEventClock(milliseconds: 1_763_683_200_000))
        let sink = MemoryEventSink()
        bus.attach(sink)
        bus.post(EventName.navIn, values: ["extras": ["fb_app_id": 123], "ok": true])
        bus.flush()
        #expect(sink.events.first?.fields == ["extras/fb_app_id": "123", "ok": "1"])
        #expect(sink.events.first?.timestamp == 1_763_683_200_000)
        bus.close()
    }

    @Test func publishKeepsTheIdAndTimestamp() {
        let bus = MeasurementEventBus()
        let sink = MemoryEventSink()
        bus.attach(sink)
        let event = MeasurementEvent(id: EventID("imported-1"), name: "x", fields: ["k": "v"], timestamp: 42)
        #expect(bus.publish(event) == EventID("imported-1"))
        bus.flush()
        #expect(sink.events == [event])
        bus.close()
    }

    @Test func asyncSequenceDeliversInOrderAndEndsWhenTheBusCloses() async {
        let bus = MeasurementEventBus()
        let stream = bus.events(options: ObserverOptions(label: "stream", bufferCapacity: 1_000))
        let consumer = Task {
            var names: [String] = []
            for await event in stream { names.append(event.name) }
            return names
        }
        for n in 0..<100 { bus.post("e\(n)") }
        await bus.close()
        #expect(await consumer.value == (0..<100).map { "e\($0)" })
    }

    @Test func aLaggingAsyncSequenceConsumerGetsEveryQueuedEventInOrder() async {
        let bus = MeasurementEventBus()
        let stream = bus.events(options: ObserverOptions(label: "lagging", bufferCapacity: 20_000))
        for n in 0..<20_000 { bus.post("e", fields: ["n": "\(n)"]) }  // queued before anyone iterates
        #expect(bus.statistics.observers[0].buffered == 20_000)
        var iterator = stream.makeAsyncIterator()
        for n in 0..<20_000 {
            guard let event = await iterator.next() else {
                Issue.record("the sequence ended after \(n) events")
                break
            }
            if event.fields["n"] != "\(n)" {
                Issue.record("event \(n) arrived as \(event.fields["n"] ?? "?")")
                break
            }
        }
        #expect(bus.statistics.observers[0].buffered == 0)
        #expect(bus.statistics.observers[0].delivered == 20_000)
        await bus.close()
        #expect(await iterator.next() == nil)
    }

    @Test func asyncSequenceEndsWhenTheConsumingTaskIsCancelled() async {
        let bus = MeasurementEventBus()
        let stream = bus.events()
        let consumer = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        bus.post("one")
        consumer.cancel()
        let count = await consumer.value
        #expect(count <= 1)
        bus.post("after")  // no consumer: must not block or crash
        await bus.close()
    }
}
