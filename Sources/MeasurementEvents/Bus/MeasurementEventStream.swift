/// The events of a bus as an async sequence (see ``MeasurementEventBus/events(options:)``).
///
/// Single-consumer: iterate it from one task. It ends when that task is cancelled, when the bus closes,
/// or when the sequence and its iterators are released.
public struct MeasurementEventStream: AsyncSequence, Sendable {
    public typealias Element = MeasurementEvent

    final class Handle: Sendable {
        let subscription: Subscription
        let token: ObservationToken

        init(subscription: Subscription, token: ObservationToken) {
            self.subscription = subscription
            self.token = token
        }

        deinit { token.cancel() }
    }

    let handle: Handle

    init(subscription: Subscription, onCancel: @escaping @Sendable () -> Void) {
        handle = Handle(subscription: subscription, token: ObservationToken(onCancel))
    }

    /// Stops the sequence: a pending `next()` returns `nil`, and so do later ones.
    public func cancel() {
        handle.token.cancel()
    }

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(handle: handle)
    }

    /// Iterates the events in post order.
    public struct Iterator: AsyncIteratorProtocol {
        let handle: Handle

        /// The next event, or `nil` when the sequence has ended.
        public mutating func next() async -> MeasurementEvent? {
            await handle.subscription.nextStreamEvent()
        }
    }
}
