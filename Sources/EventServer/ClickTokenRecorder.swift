import EventStoreInterface
import Logging
import MeasurementEvents
import ServiceLifecycle

/// Keeps the click tokens that pages and store hops mint (docs/install.md), off the response path as the hits are:
/// a page hands its click over without waiting, and this service stores what has gathered every ``interval``, in one
/// transaction (``ClickTokenStore/recordClicks(_:)``). Every ``sweepInterval`` it deletes the clicks whose claim
/// window (``window``) has ended, with their install ids.
///
/// A click not yet stored is still found: ``click(_:)`` looks in memory first, and ``store(ifHeld:)`` stores a held
/// click at once, so that a claim right after its page view (a test, a quick install) finds it. A click that cannot
/// be kept (the buffer is full, the store failed) is counted in `/metrics` and logged; its page still works, and its
/// claim answers `unknown_click`.
///
/// Run as a `Service` after the store's own services (so that at shutdown it stops first and stores its last clicks).
final class ClickTokenRecorder: Service, Sendable {
    /// How long a click can be claimed: `deferred_window` of the config, 7 days by default.
    let window: Duration
    /// How long clicks gather before they are stored.
    let interval: Duration
    /// How often the clicks whose window ended are deleted.
    let sweepInterval: Duration
    /// The most clicks held between two stores; more are counted as lost.
    let capacity: Int
    let clock: any EventClock
    private let store: any ClickTokenStore
    private let executor = StoreExecutor(label: "alstats-clicks")
    private let metrics: ServerMetrics
    private let logger: Logger
    private let state = StateLock(State())

    private struct State {
        /// Minted and not yet handed to the store.
        var pending: [String: StoredClick] = [:]
        /// Handed to the store by a ``send()`` that has not finished.
        var sending: [String: StoredClick] = [:]
    }

    init(
        store: any ClickTokenStore, window: Duration, clock: any EventClock, metrics: ServerMetrics, logger: Logger,
        interval: Duration = .milliseconds(100), sweepInterval: Duration = .seconds(300), capacity: Int = 100_000
    ) {
        self.store = store
        self.window = window
        self.clock = clock
        self.metrics = metrics
        self.logger = logger
        self.interval = interval
        self.sweepInterval = sweepInterval
        self.capacity = max(1, capacity)
    }

    /// The start of the claim window now: a click minted before it can no longer be claimed.
    var windowStart: Int64 { clock.nowMilliseconds() - window.saturatingMilliseconds }

    /// Holds `click` for the next store; never waits. Returns `false` when the buffer was full (counted as lost).
    @discardableResult
    func record(_ click: StoredClick) -> Bool {
        let kept = state.withLock { state in
            guard state.pending.count < capacity else { return false }
            state.pending[click.token] = click
            return true
        }
        if !kept { metrics.clickTokensLost(1) }
        return kept
    }

    /// The click minted with `token`: from memory when it is not stored yet, else from the store.
    /// - Throws: ``StoreError`` when the store cannot be read.
    func click(_ token: String) async throws(StoreError) -> StoredClick? {
        if let held = held(token) { return held }
        return try await executor.run { () async throws(StoreError) in try await store.click(token: token) }
    }

    /// Stores the click of `token` at once when it is still held in memory (a claim is about to read it).
    /// - Throws: ``StoreError`` when it cannot be stored.
    func store(ifHeld token: String) async throws(StoreError) {
        guard let held = held(token) else { return }
        try await executor.run { () async throws(StoreError) in try await store.recordClicks([held]) }
    }

    /// Runs a claim on the store's executor.
    func claim(_ token: String, by claim: ClickClaim) async throws(StoreError) -> ClickClaimOutcome {
        let since = windowStart
        return try await executor.run { () async throws(StoreError) in
            try await store.claimClick(token, by: claim, mintedSince: since)
        }
    }

    private func held(_ token: String) -> StoredClick? {
        state.withLock { $0.pending[token] ?? $0.sending[token] }
    }

    /// Stores the gathered clicks every ``interval`` and deletes the ended ones every ``sweepInterval``, until
    /// graceful shutdown; then stores the last ones.
    func run() async throws {
        var sinceSweep: Duration = .zero
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await send()
            sinceSweep += interval
            if sinceSweep >= sweepInterval {
                sinceSweep = .zero
                await sweep()
            }
        }
        await send()
    }

    /// Stores what has gathered, in one transaction, and waits for it.
    func send() async {
        let clicks = state.withLock { state in
            state.sending.merge(state.pending) { $1 }
            state.pending.removeAll()
            return Array(state.sending.values)
        }
        guard !clicks.isEmpty else { return }
        do {
            try await executor.run { () async throws(StoreError) in try await store.recordClicks(clicks) }
        } catch {
            metrics.clickTokensLost(clicks.count)
            logger.warning("\(String(counting: clicks.count, "click token")) could not be stored: \(error.message)")
        }
        state.withLock { state in for click in clicks { state.sending[click.token] = nil } }
    }

    /// Deletes the clicks minted before the window, with their claims and install ids.
    func sweep() async {
        let cutoff = windowStart
        do {
            let deleted = try await executor.run { () async throws(StoreError) in
                try await store.deleteClicks(mintedBefore: cutoff)
            }
            if deleted > 0 { logger.debug("deleted \(String(counting: deleted, "click token")) past their window") }
        } catch {
            logger.warning(
                "the click tokens past their window could not be deleted (tried again later): \(error.message)")
        }
    }
}
