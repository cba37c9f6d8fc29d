import Synchronization

/// A bounded ring between posters and one subscription's consumer that takes no lock: any number of threads
/// push, any number pop (the consumer, and a poster that makes room under ``OverflowPolicy/dropOldest``).
///
/// It is Dmitry Vyukov's bounded queue. Every slot carries a sequence number that says whose turn it is: the
/// slot of position `p` (`p % slots`) is free for the push of `p` when its number is `p`, holds the
/// element of `p` when it is `p + 1`, and is freed for the push of `p + slots` by the pop of `p`. A push
/// claims the next position with one compare-and-swap on `tail`, writes its element, then publishes it by
/// storing the slot's number; a pop does the same on `head`. Each side touches the other's counter only
/// through the slots, so a poster and the consumer share no lock and, away from a nearly empty or full ring,
/// no cache line. Positions grow without wrapping (an `Int` lasts centuries at a billion events a second),
/// and a position is the element's sequence number: the order of the pushes, which flushes count in.
///
/// ```swift
/// let ring = EventRing<Int>(capacity: 2)
/// if let position = ring.claim() { ring.publish(7, at: position) }   // position 0
/// ring.pop()                                                         // (position: 0, element: 7)
/// ```
///
/// `@unchecked Sendable`: an element is written only by the thread whose compare-and-swap claimed its
/// position, before the releasing store of the slot's number, and read (moved out) only by the thread whose
/// compare-and-swap took that position after an acquiring load saw the number; the counters and slot
/// numbers are atomics. The memory lives as long as the ring.
final class EventRing<Element>: @unchecked Sendable {
    /// How many elements the ring holds at most.
    let capacity: Int
    /// How many slots it has: the capacity, but at least 2 (with one slot, "published" and "free for the next
    /// lap" would be the same number); a ring of capacity 1 then also checks the count in ``claim()``.
    private let slots: Int
    /// `slots - 1` when that is a power of two (a mask then finds the slot), else -1.
    private let mask: Int
    /// The slots' sequence numbers.
    private let sequences: UnsafeMutablePointer<Atomic<Int>>
    /// The elements, initialized only while their slot holds one (allocated, not touched, until then).
    private let elements: UnsafeMutablePointer<Element>
    /// `tail` (the next position to push) and `head` (the next to pop), on cache lines of their own.
    private let counters: UnsafeMutablePointer<Atomic<Int>>

    /// Atomics between the two counters: 128 bytes, so that neither shares a line (or its prefetched pair)
    /// with the other.
    private static var counterSpacing: Int { 16 }

    /// Creates an empty ring.
    /// - Parameter capacity: how many elements it holds (at least 1).
    init(capacity: Int) {
        precondition(capacity >= 1, "a ring holds at least one element")
        self.capacity = capacity
        slots = max(2, capacity)
        mask = slots & (slots - 1) == 0 ? slots - 1 : -1
        sequences = .allocate(capacity: slots)
        for index in 0..<slots { (sequences + index).initialize(to: Atomic(index)) }
        elements = .allocate(capacity: slots)
        counters = .allocate(capacity: 2 * EventRing.counterSpacing)
        for index in 0..<2 * EventRing.counterSpacing { (counters + index).initialize(to: Atomic(0)) }
    }

    deinit {
        while pop() != nil {}
        sequences.deinitialize(count: slots)
        sequences.deallocate()
        elements.deallocate()
        counters.deinitialize(count: 2 * EventRing.counterSpacing)
        counters.deallocate()
    }

    private var tail: UnsafeMutablePointer<Atomic<Int>> { counters }
    private var head: UnsafeMutablePointer<Atomic<Int>> { counters + EventRing.counterSpacing }

    @inline(__always)
    private func slot(_ position: Int) -> Int {
        mask >= 0 ? position & mask : position % slots
    }

    // MARK: Pushing

    /// Claims the next position for a push, or returns `nil` when the ring holds `capacity` elements. Every
    /// claimed position must then be published with ``publish(_:at:)``: the consumer waits at it until then.
    @inline(__always)
    func claim() -> Int? {
        var position = tail.pointee.load(ordering: .relaxed)
        while true {
            let difference = sequences[slot(position)].load(ordering: .acquiring) &- position
            if difference == 0 {
                if slots != capacity, position &- head.pointee.load(ordering: .acquiring) >= capacity { return nil }
                let (exchanged, current) = tail.pointee.weakCompareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if exchanged { return position }
                position = current
            } else if difference < 0 {
                return nil  // the slot still holds the element of `position - capacity`
            } else {
                position = tail.pointee.load(ordering: .relaxed)  // another pusher took it meanwhile
            }
        }
    }

    /// Stores `element` at a position returned by ``claim()`` and makes it visible to ``pop()``.
    ///
    /// The store that publishes it is sequentially consistent, so that it pairs with a consumer that
    /// announces it will sleep and then checks ``hasReadyElement``: either the consumer sees the element, or
    /// the pusher's next sequentially consistent load sees the announcement (the consumer's wake-up handshake).
    @inline(__always)
    func publish(_ element: consuming Element, at position: Int) {
        let index = slot(position)
        (elements + index).initialize(to: element)
        sequences[index].store(position &+ 1, ordering: .sequentiallyConsistent)
    }

    // MARK: Popping

    /// Takes the oldest published element and its position, or returns `nil` when there is none (the ring is
    /// empty, or the oldest position is claimed but not yet published).
    @inline(__always)
    func pop() -> (position: Int, element: Element)? {
        var position = head.pointee.load(ordering: .relaxed)
        while true {
            let index = slot(position)
            let difference = sequences[index].load(ordering: .acquiring) &- (position &+ 1)
            if difference == 0 {
                let (exchanged, current) = head.pointee.weakCompareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if exchanged {
                    let element = (elements + index).move()
                    sequences[index].store(position &+ slots, ordering: .releasing)
                    return (position, element)
                }
                position = current
            } else if difference < 0 {
                return nil
            } else {
                position = head.pointee.load(ordering: .relaxed)  // another popper took it meanwhile
            }
        }
    }

    /// Whether the oldest position holds a published element, read with a sequentially consistent load (see
    /// ``publish(_:at:)``).
    var hasReadyElement: Bool {
        let position = head.pointee.load(ordering: .sequentiallyConsistent)
        return sequences[slot(position)].load(ordering: .sequentiallyConsistent) == position &+ 1
    }

    // MARK: Counting

    /// The next position a push will claim: every element pushed so far has a lower one.
    var tailPosition: Int { tail.pointee.load(ordering: .acquiring) }

    /// The oldest position not yet popped: every element popped so far has a lower one.
    var headPosition: Int { head.pointee.load(ordering: .acquiring) }

    /// How many elements are in the ring (claimed and not yet popped); a snapshot while others push or pop.
    var count: Int {
        let popped = headPosition
        return min(capacity, max(0, tailPosition - popped))
    }

    /// Whether nothing is waiting in the ring (a snapshot while others push or pop).
    var isEmpty: Bool { count == 0 }
}
