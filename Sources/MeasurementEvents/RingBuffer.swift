/// A fixed-capacity FIFO queue: O(1) append and removal at both ends, no allocation after creation.
struct RingBuffer<Element> {
    private var storage: ContiguousArray<Element?>
    private var head = 0
    private(set) var count = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a ring buffer needs room for at least one element")
        storage = ContiguousArray(repeating: nil, count: capacity)
    }

    var capacity: Int { storage.count }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == storage.count }

    /// Appends `element`; the caller checks ``isFull`` first.
    mutating func append(_ element: Element) {
        var tail = head + count
        if tail >= storage.count { tail -= storage.count }
        storage[tail] = element
        count += 1
    }

    var first: Element? { count > 0 ? storage[head] : nil }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head].take()
        head += 1
        if head == storage.count { head = 0 }
        count -= 1
        return element
    }

    /// Removes every element and returns how many there were.
    mutating func removeAll() -> Int {
        let removed = count
        while popFirst() != nil {}
        return removed
    }
}
