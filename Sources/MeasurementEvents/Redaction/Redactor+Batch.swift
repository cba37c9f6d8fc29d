import Dispatch

extension Redactor {
    /// Events per share of a batch redacted on another core: below twice this, one thread does it all.
    static let parallelShare = 512

    /// Every event of `events` redacted (as by ``redact(_:)-(MeasurementEvent)``), in the same order.
    ///
    /// A large batch is cut into shares redacted at the same time on the cores that are free
    /// (`DispatchQueue.concurrentPerform`): the secret check decodes every escaped value, and it is most of
    /// what a store's writer thread does per event besides SQLite. The result is the same as one thread's.
    ///
    /// ```swift
    /// let safe = Redactor().redact(batch)   // safe[i] is redactor.redact(batch[i])
    /// ```
    public func redact(_ events: [MeasurementEvent]) -> [MeasurementEvent] {
        let shares = min(events.count / Redactor.parallelShare, 8)
        guard shares > 1 else { return events.map { redact($0) } }
        return [MeasurementEvent](unsafeUninitializedCapacity: events.count) { buffer, initialized in
            // Each share initializes its own range of `buffer` only; concurrentPerform returns after all.
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: shares) { share in
                let range = Redactor.range(of: share, in: shares, count: events.count)
                for index in range {
                    (output.baseAddress! + index).initialize(to: redact(events[index]))
                }
            }
            initialized = events.count
        }
    }

    /// The positions of share `share` of `shares` over `count` events (the last one takes the remainder).
    private static func range(of share: Int, in shares: Int, count: Int) -> Range<Int> {
        let size = count / shares
        return share * size..<(share == shares - 1 ? count : (share + 1) * size)
    }
}
