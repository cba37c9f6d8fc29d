/// A write's place in a line of overlapping writes (``EventBackend/writeBatches(_:losses:after:claimed:)``): the
/// next write claims its ids only once this one has opened its turn, after claiming its own (or failing), so that
/// of two writes holding the same id the earlier keeps it, as when they run one after the other.
///
/// ```swift
/// let first = WriteTurn(), second = WriteTurn()
/// async let a = backend.writeBatches([chunkA], losses: [:], after: nil, claimed: first)
/// async let b = backend.writeBatches([chunkB], losses: [:], after: first, claimed: second)
/// ```
public actor WriteTurn {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A turn not yet open.
    public init() {}

    /// Opens the turn: every write waiting on it goes on. Opening an open turn does nothing.
    public func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    /// Returns once the turn is open.
    public func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Runs `write`, then opens the turn whether it succeeded or not: a write that fails must not hold up the
    /// writes in line after it.
    public nonisolated func opening<Result>(after write: () async throws(StoreError) -> Result)
        async throws(StoreError) -> Result
    {
        do {
            let result = try await write()
            await open()
            return result
        } catch {
            await open()
            throw error
        }
    }
}
