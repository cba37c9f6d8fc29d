import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

extension SQLiteEventStore {
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
        try withStore { store throws(SQLiteError) in
            var stored: [Int] = []
            stored.reserveCapacity(batches.count)
            do throws(SQLiteError) {
                // Not atomic per batch (no savepoint, whose journal rewrote most of the id index's pages on every
                // request with random ids): any error below rolls the whole transaction back, and every batch
                // of the call is answered as failed.
                for batch in batches {
                    stored.append(batch.isEmpty ? 0 : try store.writer.write(batch, mode: .withinTransaction))
                }
                try SQLiteEventStore.finish(store.writer, losses: losses)
            } catch {
                store.writer.rollback()
                throw error
            }
            return stored
        }
    }

    /// Redacts and encodes `events` for ``writeBatches(encoded:losses:)``, without the store's lock: call it
    /// on each request's own task, so that this work runs on every core while the writer inserts.
    ///
    /// ```swift
    /// let encoded = store.encode(request.events)
    /// ```
    public func encode(_ events: [MeasurementEvent]) -> EncodedEvents {
        EncodedEvents(events, redactor: redactor, packer: packers.current)
    }

    /// ``writeBatches(_:losses:)`` for batches already encoded by ``encode(_:)``: the same events stored, the
    /// same per-batch counts of new events and the same rollups, in one transaction; the rows of all the
    /// batches are inserted in one id order (one sort per call, not one per batch).
    ///
    /// ```swift
    /// let stored = try store.writeBatches(encoded: [store.encode(a.events), store.encode(b.events)])
    /// ```
    /// - Parameters:
    ///   - batches: the encoded events of each request, in the order the answers come back.
    ///   - losses: rejection counts to add to completeness, by reason.
    /// - Returns: for each batch, in order, how many of its events were new.
    /// - Throws: ``StoreError`` when the transaction could not be committed; then nothing of the call is
    ///   stored (nor its losses, nor its redaction counts) and every batch must be answered as failed.
    public func writeBatches(
        encoded batches: [EncodedEvents], losses: [DropReason: Int] = [:]
    ) throws(StoreError) -> [Int] {
        try withStore { store throws(SQLiteError) in
            do throws(SQLiteError) {
                let stored: [Int]
                if batches.contains(where: { !$0.isEmpty }) {
                    stored = try store.writer.write(encoded: batches)
                } else {
                    stored = [Int](repeating: 0, count: batches.count)
                }
                try SQLiteEventStore.finish(store.writer, losses: losses)
                return stored
            } catch {
                store.writer.rollback()
                throw error
            }
        }
    }

    /// Records `losses` in the open transaction (opening one when needed) and commits it.
    private static func finish(_ writer: EventWriter, losses: [DropReason: Int]) throws(SQLiteError) {
        if losses.values.contains(where: { $0 > 0 }) {
            try writer.beginIfNeeded()
            try writer.recordLosses(losses)
        }
        try writer.commit()
    }
}
