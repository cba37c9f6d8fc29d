/// The bounded queue between posters and one subscription's consumer: posters append, the consumer
/// takes everything at once by swapping arrays, so the lock around it is held for O(1) either way.
///
/// While there is room it is a plain array. When full under ``OverflowPolicy/dropOldest``, new elements
/// overwrite the oldest in place, turning the array into a ring whose start is `head`; ``take(into:)``
/// hands the elements out oldest first either way.
struct EventInbox<Element> {
    private var elements: [Element] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        elements.reserveCapacity(min(capacity, EventInbox.initialReservation))
    }

    /// Room reserved up front, so that a burst does not pay for the array's early regrowths.
    static var initialReservation: Int { 4_096 }

    var count: Int { elements.count }
    var isEmpty: Bool { elements.isEmpty }
    var isFull: Bool { elements.count >= capacity }

    /// The oldest element.
    var first: Element? { elements.isEmpty ? nil : elements[head] }

    /// Appends `element`; the caller checks ``isFull`` first.
    mutating func append(_ element: Element) {
        elements.append(element)
    }

    /// Replaces the oldest element with `element`, which becomes the newest (the buffer must be full).
    mutating func overwriteOldest(with element: Element) {
        elements[head] = element
        head += 1
        if head == elements.count { head = 0 }
    }

    /// Moves every element, oldest first, into `spare` (which must be empty), in O(1) unless the buffer wrapped.
    mutating func take(into spare: inout [Element]) {
        normalise()
        swap(&elements, &spare)
        if elements.capacity < min(capacity, EventInbox.initialReservation) {
            elements.reserveCapacity(min(capacity, EventInbox.initialReservation))
        }
    }

    /// Removes every element and returns how many there were.
    mutating func removeAll() -> Int {
        defer {
            elements.removeAll()
            head = 0
        }
        return elements.count
    }

    private mutating func normalise() {
        guard head != 0 else { return }
        elements = Array(elements[head...] + elements[..<head])
        head = 0
    }
}
