import Dispatch
import Synchronization

/// The measurement-event bus: host code posts events from any thread; observers, async sequences and
/// sinks receive them in post order, each from its own bounded buffer, never on the poster's thread.
///
/// `post` does not block on observers or I/O and never throws: it stamps the event (time from the
/// injected clock, a time-ordered ``EventID``), runs the interceptors, and queues the event for each
/// observer. An observer that falls behind loses events by its ``OverflowPolicy``, and every loss is
/// counted in ``statistics`` (and reported to sinks, which persist it).
///
/// ```swift
/// let bus = MeasurementEventBus()
/// let token = bus.addObserver { event in print(event.name, event.fields) }
/// bus.post(EventName.navOut, fields: [FieldName.success: "1", FieldName.type: "app"])
/// bus.flush()          // returns once the observer has seen the event
/// token.cancel()
/// ```
public final class MeasurementEventBus: Sendable {
    /// The bus host code shares by default; App Links code posts here unless given another bus.
    public static let shared = MeasurementEventBus()

    private struct State {
        var ids: EventIDSequence
        var subscriptions: [Subscription] = []
        var closed = false
        var posted = 0
        var accepted = 0
        var truncatedValues = 0
        var rejected: [DropReason: Int] = [:]
    }

    struct Interceptor: Sendable {
        let id: Int
        let label: String
        let transform: @Sendable (inout MeasurementEvent) -> InterceptorVerdict
    }

    private let clock: any EventClock
    private let flattener: Flattener
    private let state: StateLock<State>
    private let interceptors = StateLock<(next: Int, list: [Interceptor])>((0, []))
    private let interceptorCount = Atomic<Int>(0)

    /// Creates a bus.
    /// - Parameters:
    ///   - clock: the time source for event timestamps; by default the system clock.
    ///   - limits: the field limits every posted event is checked against; by default ``FlatteningLimits/standard``.
    ///   - idSeed: makes the ids reproducible: with the same seed and clock, the same posts get the same ids
    ///     (for simulations such as `alstats demo`, whose re-runs then store nothing twice). Leave it `nil` in
    ///     production: two buses with one seed would give out the same ids.
    public init(clock: any EventClock = SystemEventClock(), limits: FlatteningLimits = .standard, idSeed: UInt64? = nil)
    {
        self.clock = clock
        self.flattener = Flattener(limits: limits)
        self.state = StateLock(State(ids: EventIDSequence(seed: idSeed)))
    }

    deinit {
        let subscriptions = state.withLock { $0.subscriptions }
        for subscription in subscriptions { subscription.stop(onExit: nil) }
    }

    // MARK: Posting

    /// Posts an event with flat string fields.
    ///
    /// Safe from any thread or task; it never blocks on observers and never throws. An event over the
    /// field limits is rejected (or has long values cut), and counted either way.
    /// - Returns: the id given to the event, or `nil` when it was rejected or dropped by an interceptor.
    @discardableResult
    public func post(_ name: String, fields: [String: String] = [:]) -> EventID? {
        let timestamp = clock.nowMilliseconds()
        var fields = fields
        guard let truncated = enforceLimits(on: &fields) else { return nil }
        return submit(
            MeasurementEvent(id: .unassigned, name: name, fields: fields, timestamp: timestamp), truncated: truncated)
    }

    /// Posts an event whose fields are JSON-like values, flattened by ``Flattener`` (`extras/fb_app_id`, ...).
    /// - Returns: the id given to the event, or `nil` when it was rejected or dropped by an interceptor.
    @discardableResult
    public func post(_ name: String, values: JSONObject) -> EventID? {
        let timestamp = clock.nowMilliseconds()
        do {
            let flat = try flattener.flatten(values)
            return submit(
                MeasurementEvent(id: .unassigned, name: name, fields: flat.fields, timestamp: timestamp),
                truncated: flat.truncatedValues)
        } catch {
            reject(error.dropReason)
            return nil
        }
    }

    /// Publishes an event that already has its id and timestamp (a replayed or imported event); the bus
    /// keeps both. Limits and interceptors apply as for ``post(_:fields:)``.
    /// - Returns: the event's id, or `nil` when it was rejected or dropped by an interceptor.
    @discardableResult
    public func publish(_ event: MeasurementEvent) -> EventID? {
        var event = event
        guard let truncated = enforceLimits(on: &event.fields) else { return nil }
        return submit(event, truncated: truncated, keepIdentity: true)
    }

    /// Applies the field limits to flat fields: returns how many values were cut, or `nil` when the event
    /// is rejected (then already counted). Fields within the limits, the usual case, are only read.
    @inline(__always)
    private func enforceLimits(on fields: inout [String: String]) -> Int? {
        guard fields.count > flattener.limits.maximumFields || !fieldsWithinLimits(fields) else { return 0 }
        do {
            let checked = try flattener.check(fields)
            fields = checked.fields
            return checked.truncatedValues
        } catch {
            reject(error.dropReason)
            return nil
        }
    }

    @inline(__always)
    private func fieldsWithinLimits(_ fields: [String: String]) -> Bool {
        let limits = flattener.limits
        for (key, value) in fields
        where key.utf8.count > limits.maximumKeyBytes || value.utf8.count > limits.maximumValueBytes {
            return false
        }
        return true
    }

    /// Stamps, intercepts and queues `event` for every subscription, all under the bus's lock so that
    /// ids and every subscription's order agree. The event is moved, not copied, into the last
    /// subscription's ring: each copy would touch the fields' reference count, a cache line the
    /// delivery threads also touch.
    private func submit(_ event: consuming MeasurementEvent, truncated: Int, keepIdentity: Bool = false) -> EventID? {
        guard !event.name.isEmpty else {
            reject(.emptyName)
            return nil
        }
        if interceptorCount.load(ordering: .relaxed) > 0 {
            let list = interceptors.withLock { $0.list }
            for interceptor in list {
                if case .drop(let reason) = interceptor.transform(&event) {
                    reject(reason)
                    return nil
                }
            }
        }
        var pending: MeasurementEvent? = consume event
        return state.withLock { state -> EventID? in
            state.posted += 1
            guard !state.closed else {
                state.rejected[.busClosed, default: 0] += 1
                return nil
            }
            if !keepIdentity { pending!.id = state.ids.next(milliseconds: pending!.timestamp) }
            let id = pending!.id
            state.accepted += 1
            state.truncatedValues += truncated
            if truncated > 0 {
                // Sinks count the altered event in their completeness record.
                for subscription in state.subscriptions { subscription.noteLoss(.valueTruncated) }
            }
            let last = state.subscriptions.count - 1
            for index in state.subscriptions.indices {
                state.subscriptions[index].enqueue(index == last ? pending.take()! : pending!)
            }
            return id
        }
    }

    private func reject(_ reason: DropReason) {
        state.withLock { state in
            state.posted += 1
            state.rejected[reason, default: 0] += 1
            for subscription in state.subscriptions { subscription.noteLoss(reason) }
        }
    }

    // MARK: Observers

    /// Registers a closure called with every event posted from now on, in post order, on a delivery
    /// thread of its own (never the poster's).
    ///
    /// The returned token's ``ObservationToken/cancel()`` stops delivery; it is safe to call from inside
    /// the closure.
    /// - Parameters:
    ///   - options: the label, buffer capacity and overflow policy.
    ///   - handler: called once per event.
    @discardableResult
    public func addObserver(
        options: ObserverOptions = ObserverOptions(),
        _ handler: @escaping @Sendable (MeasurementEvent) -> Void
    ) -> ObservationToken {
        let subscription = Subscription(
            label: options.label, consumer: .handler(handler), options: options, clock: clock)
        register(subscription)
        subscription.startWorker()
        return ObservationToken { [weak self] in
            self?.unregister(subscription)
            subscription.cancel()
        }
    }

    /// Attaches a sink: it receives every event posted from now on in batches, commits per its
    /// ``SinkCommitPolicy``, and hears of every event that did not reach it.
    ///
    /// Cancelling the returned token detaches the sink after writing and committing what is queued for it;
    /// the sink stays open. ``close()`` closes the sinks still attached.
    @discardableResult
    public func attach(
        _ sink: any EventSink, options: ObserverOptions = ObserverOptions(label: "sink", bufferCapacity: 65_536)
    ) -> ObservationToken {
        let subscription = Subscription(label: options.label, consumer: .sink(sink), options: options, clock: clock)
        register(subscription)
        subscription.startWorker()
        return ObservationToken { [weak self] in
            self?.unregister(subscription)
            let done = DispatchSemaphore(value: 0)
            subscription.stop { done.signal() }
            if !subscription.isCurrentWorker { done.wait() }
        }
    }

    /// The events posted from now on, as an async sequence with its own bounded buffer.
    ///
    /// Iterate it from one task. The sequence ends when the iterating task is cancelled, when the bus
    /// closes, or when the sequence is released.
    ///
    /// ```swift
    /// for await event in bus.events() where event.name == EventName.navIn { ... }
    /// ```
    public func events(options: ObserverOptions = ObserverOptions(label: "stream")) -> MeasurementEventStream {
        let subscription = Subscription(label: options.label, consumer: .stream, options: options, clock: clock)
        register(subscription)
        return MeasurementEventStream(subscription: subscription) { [weak self] in
            self?.unregister(subscription)
            subscription.cancel()
        }
    }

    /// Adds a synchronous transform that every posted event passes through, in the order added, on the
    /// poster's thread before delivery (for redaction or enrichment). Returning ``InterceptorVerdict/drop(_:)``
    /// drops the event, counted under the reason given.
    ///
    /// Keep interceptors fast: they run inside `post`.
    @discardableResult
    public func addInterceptor(
        label: String = "interceptor",
        _ transform: @escaping @Sendable (inout MeasurementEvent) -> InterceptorVerdict
    ) -> ObservationToken {
        let id = interceptors.withLock { state -> Int in
            state.next += 1
            state.list.append(Interceptor(id: state.next, label: label, transform: transform))
            return state.next
        }
        interceptorCount.add(1, ordering: .sequentiallyConsistent)
        return ObservationToken { [weak self] in
            guard let self else { return }
            let removed = interceptors.withLock { state -> Bool in
                let before = state.list.count
                state.list.removeAll { $0.id == id }
                return state.list.count < before
            }
            if removed { interceptorCount.subtract(1, ordering: .sequentiallyConsistent) }
        }
    }

    private func register(_ subscription: Subscription) {
        let closed = state.withLock { state -> Bool in
            if !state.closed { state.subscriptions.append(subscription) }
            return state.closed
        }
        if closed { subscription.stop(onExit: nil) }
    }

    private func unregister(_ subscription: Subscription) {
        state.withLock { state in state.subscriptions.removeAll { $0 === subscription } }
    }

    // MARK: Flush and close

    /// Blocks until every event posted before the call has reached every observer and every sink has
    /// committed it. Async sequences count as reached once the event is in their buffer.
    ///
    /// Called from inside an observer, it does not wait for that observer itself.
    public func flush() {
        let done = DispatchSemaphore(value: 0)
        whenFlushed { done.signal() }
        done.wait()
    }

    /// Suspends until every event posted before the call has reached every observer and every sink has
    /// committed it. See ``flush()``.
    public func flush() async {
        await withCheckedContinuation { continuation in
            whenFlushed { continuation.resume() }
        }
    }

    /// Calls `completion` once every event posted before the call has reached every observer and every sink has
    /// committed it: on this thread when there is nothing to wait for, else on the last worker to settle. Both
    /// flushes wait on it; tests call it to check a flush without depending on the concurrency pool's queue.
    func whenFlushed(_ completion: @escaping @Sendable () -> Void) {
        let subscriptions = state.withLock { $0.subscriptions }
        let countdown = Countdown(completion)
        for subscription in subscriptions where !subscription.isStream && !subscription.isCurrentWorker {
            countdown.add()
            if !subscription.addFlushWaiter({ countdown.done() }) { countdown.done() }
        }
        countdown.done()
    }

    /// Drains and stops the bus: every event posted before the call is delivered and committed, the
    /// attached sinks are closed, async sequences end, and later posts are dropped (counted as
    /// ``DropReason/busClosed``). Blocks until done; calling it again does nothing.
    public func close() {
        let done = DispatchSemaphore(value: 0)
        whenClosed { done.signal() }
        done.wait()
    }

    /// Drains and stops the bus without blocking a thread. See ``close()``.
    public func close() async {
        await withCheckedContinuation { continuation in
            whenClosed { continuation.resume() }
        }
    }

    private func whenClosed(_ completion: @escaping @Sendable () -> Void) {
        let subscriptions = state.withLock { state -> [Subscription] in
            state.closed = true
            defer { state.subscriptions.removeAll() }
            return state.subscriptions
        }
        let countdown = Countdown(completion)
        for subscription in subscriptions {
            countdown.add()
            subscription.stop {
                if case .sink(let sink) = subscription.consumer { try? sink.close() }
                countdown.done()
            }
        }
        countdown.done()
    }

    // MARK: Statistics

    /// What the bus has done so far: posts, acceptances, and every drop by reason and observer.
    public var statistics: BusStatistics {
        let (snapshot, subscriptions) = state.withLock { ($0, $0.subscriptions) }
        return BusStatistics(
            posted: snapshot.posted, accepted: snapshot.accepted, truncatedValues: snapshot.truncatedValues,
            rejected: snapshot.rejected, observers: subscriptions.map { $0.statistics() })
    }
}

/// What an interceptor decides for an event.
public enum InterceptorVerdict: Sendable, Hashable {
    /// Deliver the (possibly changed) event.
    case keep
    /// Drop the event; the bus counts it under the reason.
    case drop(DropReason)
}

/// A registration on a bus (observer, sink, sequence or interceptor). ``cancel()`` ends it; the token
/// does not cancel by itself when released.
public final class ObservationToken: Sendable {
    private let onCancel: StateLock<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = StateLock(onCancel)
    }

    /// Ends the registration; calling it again does nothing.
    public func cancel() {
        let action = onCancel.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }
}

/// Calls a completion once as many `done()` as `add()` calls, plus one, have happened.
final class Countdown: Sendable {
    private let remaining = Atomic<Int>(1)
    private let completion: @Sendable () -> Void

    init(_ completion: @escaping @Sendable () -> Void) {
        self.completion = completion
    }

    func add() {
        remaining.add(1, ordering: .sequentiallyConsistent)
    }

    func done() {
        if remaining.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { completion() }
    }
}
