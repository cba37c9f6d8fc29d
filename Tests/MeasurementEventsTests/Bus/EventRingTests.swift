import Dispatch
import Foundation
import Synchronization
import Testing

@testable import MeasurementEvents

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock-free ring between posters and a subscription's consumer, on its own: bounds, order, and many
/// threads pushing and popping with no lock around them (the bus adds its own; these tests do not).
struct EventRingTests {
    /// Runs `body(0)` ... `body(count - 1)` each on a thread of its own and returns when all have returned.
    /// (`DispatchQueue.concurrentPerform` may run them one after another, and a pusher that waits for room
    /// would then wait forever for a popper that never starts.)
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let done = DispatchSemaphore(value: 0)
        for index in 0..<count {
            Thread.startNamed("ring-test-\(index)") {
                body(index)
                done.signal()
            }
        }
        for _ in 0..<count { done.wait() }
    }

    /// Pushes `element`, trying again (yielding the core) while the ring is full.
    static func push<Element>(_ element: Element, to ring: EventRing<Element>) -> Int {
        while true {
            if let position = ring.claim() {
                ring.publish(element, at: position)
                return position
            }
            sched_yield()
        }
    }

    @Test(arguments: [1, 7, 8, 10, 64])
    func aRingHoldsExactlyItsCapacityAndHandsElementsOutOldestFirst(capacity: Int) {
        let ring = EventRing<Int>(capacity: capacity)
        for lap in 0..<3 {
            for index in 0..<capacity {
                guard let position = ring.claim() else {
                    Issue.record("no room for element \(index) of \(capacity) in lap \(lap)")
                    return
                }
                #expect(position == lap * capacity + index, "positions count every push")
                ring.publish(lap * 1_000 + index, at: position)
            }
            #expect(ring.claim() == nil, "full at exactly \(capacity)")
            #expect(ring.count == capacity)
            for index in 0..<capacity {
                let popped = ring.pop()
                #expect(popped?.position == lap * capacity + index)
                #expect(popped?.element == lap * 1_000 + index)
            }
            #expect(ring.pop() == nil && ring.isEmpty)
        }
    }

    @Test func aPopMakesRoomForExactlyOneMorePush() {
        let ring = EventRing<String>(capacity: 3)
        for text in ["a", "b", "c"] { _ = Self.push(text, to: ring) }
        #expect(ring.claim() == nil)
        #expect(ring.pop()?.element == "a")
        let position = ring.claim()
        #expect(position == 3)
        if let position { ring.publish("d", at: position) }
        #expect(ring.claim() == nil)
        #expect([ring.pop(), ring.pop(), ring.pop()].map { $0?.element } == ["b", "c", "d"])
        #expect(ring.headPosition == 4 && ring.tailPosition == 4)
    }

    @Test func aClaimedPositionIsNotHandedOutBeforeItIsPublished() {
        let ring = EventRing<Int>(capacity: 4)
        let first = ring.claim()
        let second = ring.claim()
        if let second { ring.publish(2, at: second) }
        #expect(!ring.hasReadyElement)
        #expect(ring.pop() == nil, "the oldest position is claimed, not yet published")
        if let first { ring.publish(1, at: first) }
        #expect(ring.hasReadyElement)
        #expect(ring.pop()?.element == 1)
        #expect(ring.pop()?.element == 2)
    }

    /// Counts its live instances in a shared census.
    final class Counted: Sendable {
        final class Census: Sendable {
            let alive = Atomic<Int>(0)
        }
        let census: Census
        init(_ census: Census) {
            self.census = census
            census.alive.add(1, ordering: .relaxed)
        }
        deinit { census.alive.subtract(1, ordering: .relaxed) }
    }

    @Test func elementsLeftInARingAreReleasedWithIt() {
        let census = Counted.Census()
        do {
            let ring = EventRing<Counted>(capacity: 8)
            for _ in 0..<5 { _ = Self.push(Counted(census), to: ring) }
            _ = ring.pop()
            #expect(census.alive.load(ordering: .relaxed) == 4)
        }
        #expect(census.alive.load(ordering: .relaxed) == 0)
    }

    /// Many threads push at once into a small ring (so it fills and wraps many times) while one pops: every
    /// element comes out exactly once, and each pusher's elements in the order it pushed them.
    @Test(arguments: [16, 100])
    func manyPushersAndOnePopperLoseNothingDuplicateNothingAndKeepEachPushersOrder(capacity: Int) {
        let ring = EventRing<(producer: Int, number: Int)>(capacity: capacity)
        let producers = 4
        let perProducer = 20_000
        let received = StateLock<(positions: [Int], outOfOrder: Int, next: [Int])>(([], 0, []))
        Self.onThreads(producers + 1) { worker in
            if worker < producers {
                for number in 0..<perProducer { _ = Self.push((worker, number), to: ring) }
                return
            }
            var next = [Int](repeating: 0, count: producers)
            var outOfOrder = 0
            var positions: [Int] = []
            positions.reserveCapacity(producers * perProducer)
            while positions.count < producers * perProducer {
                guard let (position, element) = ring.pop() else {
                    sched_yield()
                    continue
                }
                if element.number != next[element.producer] { outOfOrder += 1 }
                next[element.producer] = element.number + 1
                positions.append(position)
            }
            received.withLock { $0 = (positions, outOfOrder, next) }
        }
        let (positions, outOfOrder, next) = received.withLock { $0 }
        #expect(outOfOrder == 0)
        #expect(next == [Int](repeating: perProducer, count: producers), "every producer's last element came out")
        #expect(positions == Array(0..<producers * perProducer), "positions in pop order, none twice, no gap")
        #expect(ring.pop() == nil)
    }

    /// The consumer pops while pushers also pop the oldest to make room (what ``OverflowPolicy/dropOldest``
    /// does): every element is taken exactly once, by one of them.
    @Test func poppersRacingForTheOldestTakeEachElementExactlyOnce() {
        let ring = EventRing<Int>(capacity: 32)
        let producers = 3
        let perProducer = 20_000
        let total = producers * perProducer
        let taken = StateLock<[Int]>([])
        let finished = Atomic<Int>(0)
        Self.onThreads(producers + 1) { worker in
            var mine: [Int] = []
            if worker < producers {
                for number in 0..<perProducer {
                    while true {
                        if let position = ring.claim() {
                            ring.publish(worker * perProducer + number, at: position)
                            break
                        }
                        if let (_, dropped) = ring.pop() { mine.append(dropped) }
                    }
                }
                finished.add(1, ordering: .sequentiallyConsistent)
            } else {
                while true {
                    if let (_, element) = ring.pop() {
                        mine.append(element)
                    } else if finished.load(ordering: .sequentiallyConsistent) == producers {
                        while let (_, element) = ring.pop() { mine.append(element) }
                        break
                    } else {
                        sched_yield()
                    }
                }
            }
            taken.withLock { $0 += mine }
        }
        #expect(taken.withLock { $0 }.sorted() == Array(0..<total))
    }
}
