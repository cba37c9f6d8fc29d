import MeasurementEvents
import SQLiteSupport

/// The events of a database that `destination` has not answered yet, in arrival order after the `push_cursor` row
/// of `destination` (the uploader's schema, `Migrations/upload/`); a receipt moves the cursor past its batch, in the
/// same transaction that counts the batch's rejected lines in `push_losses`.
///
/// The events come from `lines` (``PushLineSource``: SQLiteEventStore's reader of an alstats database, on a connection of
/// its own that only reads); the cursor's and the losses' statements are the uploader's, on this source's
/// connection, whose `PRAGMA data_version` therefore changes only with another process's commits.
final class PushSource: UploadSource, Sendable {
    let destination: String
    private let lines: any PushLineSource
    /// The time the push cursor is stamped with.
    private let clock: any UploadClock
    /// The connection, and the last pending count with the cursor and the database's `data_version` it was
    /// counted at; one thread at a time.
    private let state: StateLock<State>

    private struct State {
        let connection: SQLiteConnection
        var counted: (dataVersion: Int64, cursor: Int64, pending: Int)?
        /// The events of the batches finished since `counted`, while each began right after the one before and was
        /// read while the database stood as counted: the batch after a cursor is every event up to its last key, so
        /// these are the events the cursor has passed since, without counting them again (``pendingCount()``).
        var finished: (through: Int64, events: Int)?
        /// Each batch read and not yet finished, by its last key: the key it was read after, and the `data_version`
        /// before it was read.
        var readAt: [Int64: (after: Int64, dataVersion: Int64)] = [:]
    }

    /// The connection's `PRAGMA data_version`: it changes with every other connection's commit.
    private static func dataVersion(on connection: SQLiteConnection) throws(SQLiteError) -> Int64 {
        let version = try connection.cachedStatement("PRAGMA data_version")
        defer { version.reset() }
        return try version.step() ? version.int64(0) : 0
    }

    init(lines: any PushLineSource, destination: String, clock: any UploadClock) throws(SQLiteError) {
        self.destination = destination
        self.lines = lines
        self.clock = clock
        let connection = try UploadDatabase.open(
            path: lines.path, options: OutboxOptions(), create: false, checkingIntegrity: false)
        state = StateLock(State(connection: connection))
    }

    /// The key of the newest event answered by a receipt (0 for none).
    private func cursor(on connection: SQLiteConnection) throws(SQLiteError) -> Int64 {
        let select = try connection.cachedStatement(UploadSQL.statement("select_push_cursor"))
        select.bind(1, destination)
        defer { select.reset() }
        return try select.step() ? select.int64(0) : 0
    }

    func nextBatch(after previous: UploadBatch?, maximumEvents: Int, maximumBytes: Int) throws(UploadError)
        -> UploadBatch?
    {
        do throws(SQLiteError) {
            let (answered, dataVersion) = try state.withLock { state throws(SQLiteError) in
                (try cursor(on: state.connection), try Self.dataVersion(on: state.connection))
            }
            var batch = UploadBatch()
            batch.reserveCapacity(lines: maximumEvents, bytes: min(maximumBytes, maximumEvents * 1_024))
            var bytes = 0
            let after = max(answered, previous?.keys.last ?? 0)
            try lines.forEachLine(after: after, limit: maximumEvents) { line, key in
                // A line is sent as read when it is ASCII, as the store's lines nearly always are; any other is
                // sent as valid UTF-8 (an invalid byte replaced), as a `String` of it would be.
                if Self.isASCII(line) {
                    return batch.append(line, key: key, bytes: &bytes, maximumBytes: maximumBytes)
                }
                return batch.append(
                    String(decoding: line, as: UTF8.self), key: key, bytes: &bytes, maximumBytes: maximumBytes)
            }
            guard let last = batch.keys.last else { return nil }
            state.withLock { $0.readAt[last] = (after, dataVersion) }
            return batch
        } catch {
            throw UploadError(error)
        }
    }

    /// Whether `bytes` are all ASCII, read eight at a time.
    static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var seen: UInt64 = 0
            var index = 0
            while raw.count - index >= 8 {
                seen |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < raw.count {
                seen |= UInt64(raw[index])
                index += 1
            }
            return seen & 0x8080_8080_8080_8080 == 0
        }
    }

    func finish(_ batch: UploadBatch, rejected: [DropReason: Int], unseen: Bool) throws(UploadError) {
        guard let last = batch.keys.last else { return }
        do throws(SQLiteError) {
            try state.withLock { state throws(SQLiteError) in
                try move(to: last, rejected: rejected, on: state.connection)
                let readAt = state.readAt.removeValue(forKey: last)
                let (through, events) = state.finished ?? (state.counted?.cursor ?? .max, 0)
                let followsOn = readAt?.after == through && readAt?.dataVersion == state.counted?.dataVersion
                // Once a batch does not follow on, none after it does until the next count (`.max` follows nothing).
                state.finished = followsOn ? (last, events + batch.count) : (.max, 0)
            }
        } catch {
            throw UploadError(error)
        }
    }

    /// Moves the cursor to `last` and counts `rejected`, in one transaction.
    private func move(to last: Int64, rejected: [DropReason: Int], on connection: SQLiteConnection)
        throws(SQLiteError)
    {
        try connection.immediateTransaction(doing: "moving the push cursor") { () throws(SQLiteError) in
            let now = clock.nowMilliseconds
            let move = try connection.cachedStatement(UploadSQL.statement("upsert_push_cursor"))
            move.bind(1, destination)
            move.bind(2, last)
            move.bind(3, now)
            try move.run()
            let count = try connection.cachedStatement(UploadSQL.statement("upsert_push_loss"))
            for (reason, number) in rejected.sorted(by: { $0.key < $1.key }) where number > 0 {
                count.bind(1, destination)
                count.bind(2, reason.rawValue)
                count.bind(3, Int64(number))
                count.bind(4, now)
                try count.run()
            }
        }
    }

    /// The events after the cursor. The uploader asks after every receipt: counting them all each time made a push
    /// quadratic in its events (a push of 200,000 spent most of its time there, in `pread`). While no other
    /// connection has committed (`PRAGMA data_version` unchanged), the events are those counted last time less the
    /// ones the cursor has passed since: the events of the batches finished since, when they followed one another
    /// from the cursor counted (as a push's do), else counted again over the keys passed (which cost a push 3% of
    /// its CPU). Any other commit, an append or a delete, brings back a full count.
    func pendingCount() throws(UploadError) -> Int {
        do throws(SQLiteError) {
            return try state.withLock { state throws(SQLiteError) in
                let dataVersion = try Self.dataVersion(on: state.connection)
                let cursor = try cursor(on: state.connection)
                let pending: Int
                if let counted = state.counted, counted.dataVersion == dataVersion, cursor >= counted.cursor {
                    if let finished = state.finished, finished.through == cursor {
                        pending = counted.pending - finished.events
                    } else {
                        pending = counted.pending - (try lines.count(after: counted.cursor, upTo: cursor))
                    }
                } else {
                    pending = try lines.count(after: cursor, upTo: .max)
                }
                state.counted = (dataVersion, cursor, pending)
                state.finished = nil
                return pending
            }
        } catch {
            throw UploadError(error)
        }
    }

    func endUploading() {
        state.withLock { $0.readAt = [:] }
    }

    /// The rejected lines counted for `destination`, by reason.
    func losses() throws(SQLiteError) -> [DropReason: Int] {
        try state.withLock { state throws(SQLiteError) in
            let select = try state.connection.cachedStatement(UploadSQL.statement("select_push_losses"))
            select.bind(1, destination)
            defer { select.reset() }
            var losses: [DropReason: Int] = [:]
            while try select.step() { losses[DropReason(rawValue: select.text(0) ?? "")] = Int(select.int64(1)) }
            return losses
        }
    }
}
