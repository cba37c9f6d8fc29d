import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

/// Keeps the hosted links funnel's rollups (`link_rollup`, `link_rollup_day`, `link_visitor_day`,
/// `link_visitor_count`, Migrations/0009) for ``EventWriter``: it sees each event really inserted, and upserts its groups in the
/// same transaction as the events, at commit.
///
/// Only `alstats_link_hit` and `al_nav_in` events can belong to a group; every other event costs one
/// name comparison. Used by one thread at a time, as its writer.
final class LinkRollupWriter {
    private let upsertRollup: SQLiteStatement
    private let upsertDayRollup: SQLiteStatement
    private let insertVisitor: SQLiteStatement
    private let selectVisitor: SQLiteStatement
    private let upsertVisitorCount: SQLiteStatement
    /// The groups of the commit in progress.
    private var pending: [LinkRollupKey: Int] = [:]
    private var pendingVisitors: Set<LinkVisitorKey> = []
    /// The groups of the batch being written, kept only when the whole batch is.
    private var batch: [LinkRollupKey: Int] = [:]
    private var batchVisitors: Set<LinkVisitorKey> = []

    init(connection: SQLiteConnection) throws(SQLiteError) {
        upsertRollup = try connection.prepare(EmbeddedSQL.statement("upsert_link_rollup"))
        upsertDayRollup = try connection.prepare(EmbeddedSQL.statement("upsert_link_rollup_day"))
        insertVisitor = try connection.prepare(EmbeddedSQL.statement("insert_link_visitor"))
        selectVisitor = try connection.prepare(EmbeddedSQL.statement("select_link_visitor"))
        upsertVisitorCount = try connection.prepare(EmbeddedSQL.statement("upsert_link_visitor_count"))
    }

    /// Starts a batch: forgets the groups of a batch that was not kept.
    func beginBatch() {
        batch.removeAll(keepingCapacity: true)
        batchVisitors.removeAll(keepingCapacity: true)
    }

    /// Counts `event`, just inserted, in the batch.
    @inline(__always)
    func add(_ event: MeasurementEvent) {
        guard let group = LinkRollupKey.group(of: event) else { return }
        add(group.key, visitor: group.visitor)
    }

    /// Counts an event of group `key` (and `visitor`'s row, if any), just inserted, in the batch.
    @inline(__always)
    func add(_ key: LinkRollupKey, visitor: LinkVisitorKey?) {
        batch[key, default: 0] += 1
        if let visitor { batchVisitors.insert(visitor) }
    }

    /// Keeps the batch's groups for the next commit (the batch was written whole).
    func keepBatch() {
        if batch.isEmpty && batchVisitors.isEmpty { return }
        pending.merge(batch, uniquingKeysWith: +)
        pendingVisitors.formUnion(batchVisitors)
        beginBatch()
    }

    /// Upserts the kept groups inside the open transaction, then forgets them.
    func commit() throws(SQLiteError) {
        var days: [LinkRollupKey: Int] = [:]
        for (key, count) in pending {
            key.bind(to: upsertRollup, count: count)
            try upsertRollup.run()
            days[key.day, default: 0] += count
        }
        for (key, count) in days {
            key.bind(to: upsertDayRollup, count: count)
            try upsertDayRollup.run()
        }
        try commitVisitors()
        reset()
    }

    /// Records the kept visitors' rows and counts each visitor once more in every scope of
    /// `link_visitor_count` where it had no row of that day and slug yet (rows of this commit included).
    private func commitVisitors() throws(SQLiteError) {
        var counts: [LinkVisitorCountKey: Int] = [:]
        for visitor in pendingVisitors {
            selectVisitor.bind(1, visitor.day)
            selectVisitor.bind(2, visitor.slug)
            selectVisitor.bind(3, visitor.visitor)
            var seen: [(ref: String?, refererAppName: String?)] = []
            while try selectVisitor.step() { seen.append((selectVisitor.text(0), selectVisitor.text(1))) }
            selectVisitor.reset()
            for scope in LinkVisitorCountKey.Scope.allCases {
                let key = LinkVisitorCountKey(visitor, scope: scope)
                if !seen.contains(where: { key.matches(ref: $0.ref, refererAppName: $0.refererAppName) }) {
                    counts[key, default: 0] += 1
                }
            }
            visitor.bind(to: insertVisitor)
            try insertVisitor.run()
        }
        for (key, count) in counts {
            key.bind(to: upsertVisitorCount, count: count)
            try upsertVisitorCount.run()
        }
    }

    /// Forgets every group not yet committed (the transaction was rolled back).
    func reset() {
        pending.removeAll(keepingCapacity: true)
        pendingVisitors.removeAll(keepingCapacity: true)
        beginBatch()
    }
}
