import EventStore
import EventStoreInterface
import Foundation
import MeasurementEvents
import SQLiteSupport

/// The events of a database that `destination` has not answered yet, in arrival (rowid) order after the
/// `push_cursor` row of `destination` (the uploader's schema, `Migrations/upload/`); a receipt moves the cursor
/// past its batch, in the same transaction that counts the batch's rejected lines in `push_losses`.
///
/// The `events` table is EventStore's: the push reads it only through `EventStore.forEachLine` and
/// `EventStore.countEvents` (on this source's connection, so that `PRAGMA data_version` sees only other
/// connections' commits); the cursor's and the losses' statements are the uploader's.
final class PushSource: UploadSource, @unchecked Sendable {
    // @unchecked Sendable: `connection` is only used under `lock`.

    let destination: String
    private let lock = NSLock()
    private let connection: SQLiteConnection
    /// The last pending count, with the cursor and the database's `data_version` it was counted at.
    private var counted: (dataVersion: Int64, cursor: Int64, pending: Int)?

    init(path: String, destination: String) throws(StoreError) {
        self.destination = destination
        connection = try UploadDatabase.open(
            path: path, options: OutboxOptions(), create: false, checkingIntegrity: false)
    }

    /// The rowid of the newest event answered by a receipt (0 for none).
    private func cursor() throws(StoreError) -> Int64 {
        let select = try connection.prepare(UploadSQL.statement("select_push_cursor"))
        select.bind(1, destination)
        defer { select.reset() }
        return try select.step() ? select.int64(0) : 0
    }

    func nextBatch(after previous: UploadBatch?, maximumEvents: Int, maximumBytes: Int) throws(UploadError)
        -> UploadBatch?
    {
        lock.lock()
        defer { lock.unlock() }
        do throws(StoreError) {
            var batch = UploadBatch()
            var bytes = 0
            let after = max(try cursor(), previous?.keys.last ?? 0)
            try EventStore.forEachLine(on: connection, afterRowID: after, limit: maximumEvents) { line, rowid in
                batch.append(
                    String(decoding: line, as: UTF8.self), key: rowid, bytes: &bytes, maximumBytes: maximumBytes)
            }
            return batch.count == 0 ? nil : batch
        } catch {
            throw UploadError(error)
        }
    }

    func finish(_ batch: UploadBatch, rejected: [DropReason: Int], unseen: Bool) throws(UploadError) {
        guard let last = batch.keys.last else { return }
        lock.lock()
        defer { lock.unlock() }
        do throws(StoreError) {
            try connection.immediateTransaction(doing: "moving the push cursor") { () throws(StoreError) in
                let now = UploadDatabase.nowMilliseconds
                let move = try connection.prepare(UploadSQL.statement("upsert_push_cursor"))
                move.bind(1, destination)
                move.bind(2, last)
                move.bind(3, now)
                try move.run()
                let count = try connection.prepare(UploadSQL.statement("upsert_push_loss"))
                for (reason, number) in rejected.sorted(by: { $0.key < $1.key }) where number > 0 {
                    count.bind(1, destination)
                    count.bind(2, reason.rawValue)
                    count.bind(3, Int64(number))
                    count.bind(4, now)
                    try count.run()
                }
            }
        } catch {
            throw UploadError(error)
        }
    }

    /// The events after the cursor. The uploader asks after every receipt: counting them all each time made a push
    /// quadratic in its events (a push of 200,000 spent most of its time there, in `pread`). While no other
    /// connection has committed (`PRAGMA data_version` unchanged), the events are those counted last time less the
    /// ones the cursor has passed since, which are counted instead; any other commit, an append or a delete,
    /// brings back a full count.
    func pendingCount() throws(UploadError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        do throws(StoreError) {
            let dataVersion = try connection.scalarInt("PRAGMA data_version")
            let cursor = try cursor()
            let pending: Int
            if let counted, counted.dataVersion == dataVersion, cursor >= counted.cursor {
                pending = counted.pending - (try count(after: counted.cursor, upTo: cursor))
            } else {
                pending = try count(after: cursor, upTo: .max)
            }
            counted = (dataVersion, cursor, pending)
            return pending
        } catch {
            throw UploadError(error)
        }
    }

    /// The number of events with `after < rowid <= upTo`.
    private func count(after: Int64, upTo: Int64) throws(StoreError) -> Int {
        try EventStore.countEvents(on: connection, after: after, upTo: upTo)
    }

    func endUploading() {}

    /// The rejected lines counted for `destination`, by reason.
    func losses() throws(StoreError) -> [DropReason: Int] {
        lock.lock()
        defer { lock.unlock() }
        let select = try connection.prepare(UploadSQL.statement("select_push_losses"))
        select.bind(1, destination)
        defer { select.reset() }
        var losses: [DropReason: Int] = [:]
        while try select.step() { losses[DropReason(rawValue: select.text(0) ?? "")] = Int(select.int64(1)) }
        return losses
    }
}
