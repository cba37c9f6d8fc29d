import MeasurementEvents

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
    /// The ids the write holds once it has claimed: each is stored already or claimed by it, so a write in line
    /// after it may count an event of one of them as a duplicate without claiming it again (when this write then
    /// fails, the run it belongs to fails with it). Empty when the write did not say.
    public private(set) var heldIDs: Set<EventID> = []

    /// A turn not yet open.
    public init() {}

    /// How many writes wait for the turn to open: how a test knows that a write in line has reached its wait.
    package var waitingCount: Int { waiters.count }

    /// Opens the turn with the ids the write holds (``heldIDs``). Opening an open turn does nothing.
    public func open(holding ids: Set<EventID>) {
        guard !isOpen else { return }
        heldIDs = ids
        open()
    }

    /// Opens the turn: every write waiting on it goes on. Opening an open turn does nothing.
    public func open() {
        guard !isOpen else { return }
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
