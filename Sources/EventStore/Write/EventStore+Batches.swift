import MeasurementEvents

extension EventStore {
    /// Writes the event batches of several requests in one transaction (group commit) and counts, per
    /// batch, the events newly stored.
    ///
    /// Each batch is redacted and written with the store's one write path; an id already stored (by an
    /// earlier transaction, an earlier batch of this call, or earlier in the same batch) is a duplicate:
    /// acknowledged, not stored twice. `losses` (rejections counted by reason) go into the completeness
    /// table in the same transaction, so a failed commit neither stores the events nor counts their losses.
    ///
    /// ```swift
    /// let stored = try store.writeBatches([requestA.events, requestB.events], losses: ["too_large": 1])
    /// // stored[0] new events of request A; requestA.events.count - stored[0] were duplicates
    /// ```
    /// - Parameters:
    ///   - batches: the events of each request, in the order the answers come back.
    ///   - losses: rejection counts to add to completeness, by reason.
    /// - Returns: for each batch, in order, how many of its events were new.
    /// - Throws: ``StoreError`` when the transaction could not be committed; then nothing of the call is
    ///   stored and every batch must be answered as failed.
    public func writeBatches(
        _ batches: [[MeasurementEvent]], losses: [DropReason: Int] = [:]
    ) throws(StoreError) -> [Int] {
        try withConnection { store throws(StoreError) in
            var stored: [Int] = []
            stored.reserveCapacity(batches.count)
            do throws(StoreError) {
                // Not atomic per batch (no savepoint, whose journal rewrote most of the id index's pages on every
                // request with random ids): any error below rolls the whole transaction back, and every batch
                // of the call is answered as failed.
                for batch in batches {
                    stored.append(batch.isEmpty ? 0 : try store.writer.write(batch, atomic: false))
                }
                if losses.values.contains(where: { $0 > 0 }) {
                    try store.writer.beginIfNeeded()
                    try store.writer.recordLosses(losses, nowMilliseconds: EventStore.nowMilliseconds())
                }
                try store.writer.commit()
            } catch {
                store.writer.rollback()
                throw error
            }
            return stored
        }
    }
}
