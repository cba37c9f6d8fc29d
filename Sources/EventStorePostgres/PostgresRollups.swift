import EventStoreInterface
import MeasurementEvents
import PostgresNIO

/// The rollups of the events a batch really stored, aggregated in Swift with the SQLite store's keys
/// (``RollupKey``, ``LinkRollupKey``, ``LinkVisitorKey``), and upserted with one statement per table, one row per
/// group, in a fixed order of groups (two writers never wait on each other's rows in opposite orders).
struct PostgresRollups {
    var groups: [RollupKey: Int] = [:]
    var links: [LinkRollupKey: Int] = [:]
    var visitors: Set<LinkVisitorKey> = []

    /// The advisory lock key of link visitor counting ("alstats" and 3): counting a visitor reads the rows already
    /// stored, so two writers counting at once would both count one visitor.
    static let visitorLockKey: Int64 = 0x616C_7374_6174_7303

    /// Counts `count` events just stored in the rollup group `key` (read with their columns, as the SQLite store
    /// reads it: ``EventColumns/columns(of:extra:column:)``).
    mutating func add(_ count: Int, to key: RollupKey) {
        groups[key, default: 0] += count
    }

    /// Counts an event just stored in its link rollup group, and its visitor (``LinkRollupKey/group(of:)``).
    mutating func add(link group: (key: LinkRollupKey, visitor: LinkVisitorKey?)) {
        links[group.key, default: 0] += 1
        if let visitor = group.visitor { visitors.insert(visitor) }
    }

    /// Adds the counts and visitors of `other` (a strict ingest adds up its chunks' rollups and upserts them once).
    mutating func merge(_ other: PostgresRollups) {
        groups.merge(other.groups, uniquingKeysWith: +)
        links.merge(other.links, uniquingKeysWith: +)
        visitors.formUnion(other.visitors)
    }

    /// Upserts every rollup inside the open transaction of `connection`.
    func write(on connection: PostgresConnection, store: PostgresEventStore) async throws {
        var days: [RollupKey: Int] = [:]
        var series: [SeriesKey: Int] = [:]
        for (key, count) in groups {
            days[key.day, default: 0] += count
            series[key.series, default: 0] += count
        }
        for (statement, rows) in [("upsert_rollup", groups), ("upsert_rollup_day", days)] where !rows.isEmpty {
            try await store.run(PostgresSQL.statement(statement), Self.bindings(rows), on: connection)
        }
        if !series.isEmpty {
            let sorted = Self.inLockOrder(series) { $0.key.sortKey }
            var binds = PostgresBindings()
            binds.append(sorted.map(\.key.bucket))
            binds.append(sorted.map(\.key.name))
            binds.append(PostgresNullableArray(sorted.map(\.key.type)))
            binds.append(PostgresNullableArray(sorted.map(\.key.success)))
            binds.append(sorted.map { Int64($0.value) })
            try await store.run(PostgresSQL.statement("upsert_rollup_series"), binds, on: connection)
        }
        guard !links.isEmpty else { return }
        var linkDays: [LinkRollupKey: Int] = [:]
        for (key, count) in links { linkDays[key.day, default: 0] += count }
        for (statement, rows) in [("upsert_link_rollup", links), ("upsert_link_rollup_day", linkDays)] {
            try await store.run(PostgresSQL.statement(statement), Self.bindings(rows), on: connection)
        }
        if !visitors.isEmpty { try await writeVisitors(on: connection, store: store) }
    }

    /// Records the people's page views and counts each visitor once more in every scope of `link_visitor_count`
    /// where it had no row of that day and slug yet, as LinkRollupWriter does, under ``visitorLockKey``.
    private func writeVisitors(on connection: PostgresConnection, store: PostgresEventStore) async throws {
        try await store.run("SELECT pg_advisory_xact_lock(\(Self.visitorLockKey))", on: connection)
        let sorted = Self.inLockOrder(visitors) { $0.sortKey }
        var lookup = PostgresBindings()
        lookup.append(sorted.map(\.day))
        lookup.append(sorted.map(\.slug))
        lookup.append(sorted.map(\.visitor))
        let existing = try await store.rows(PostgresSQL.statement("select_link_visitors"), lookup, on: connection) {
            row in
            (
                day: try row[0].decode(Int64.self), slug: try row[1].decode(String.self),
                visitor: try row[2].decode(String.self), ref: try row[3].decode(String?.self),
                refererAppName: try row[4].decode(String?.self)
            )
        }
        var counts: [LinkVisitorCountKey: Int] = [:]
        /// A group and a visitor already counted in it by this batch.
        struct Counted: Hashable {
            var key: LinkVisitorCountKey
            var visitor: String

            static func == (lhs: Counted, rhs: Counted) -> Bool {
                lhs.key == rhs.key && lhs.visitor.hasSameBytes(as: rhs.visitor)
            }

            func hash(into hasher: inout Hasher) {
                hasher.combine(key)
                visitor.hashBytes(into: &hasher)
            }
        }
        /// A visitor of a link on a day, compared by bytes.
        struct Seen: Hashable {
            var day: Int64
            var slug: String
            var visitor: String

            static func == (lhs: Seen, rhs: Seen) -> Bool {
                lhs.day == rhs.day && lhs.slug.hasSameBytes(as: rhs.slug) && lhs.visitor.hasSameBytes(as: rhs.visitor)
            }

            func hash(into hasher: inout Hasher) {
                hasher.combine(day)
                slug.hashBytes(into: &hasher)
                visitor.hashBytes(into: &hasher)
            }
        }
        // The stored rows of each visitor, found by a look-up: a filter of all of them for every visitor was
        // quadratic, which a strict ingest's one write of every visitor of its input would feel.
        var stored: [Seen: [(ref: String?, refererAppName: String?)]] = [:]
        for row in existing {
            stored[Seen(day: row.day, slug: row.slug, visitor: row.visitor), default: []].append(
                (row.ref, row.refererAppName))
        }
        var added: Set<Counted> = []
        for visitor in sorted {
            let seen = stored[Seen(day: visitor.day, slug: visitor.slug, visitor: visitor.visitor)] ?? []
            for scope in LinkVisitorCountKey.Scope.allCases {
                let key = LinkVisitorCountKey(visitor, scope: scope)
                // A group counts a visitor once: when no stored row matched it, at its first new row.
                if !seen.contains(where: { key.matches(ref: $0.ref, refererAppName: $0.refererAppName) }),
                    added.insert(Counted(key: key, visitor: visitor.visitor)).inserted
                {
                    counts[key, default: 0] += 1
                }
            }
        }
        var rows = PostgresBindings()
        rows.append(sorted.map(\.day))
        rows.append(sorted.map(\.slug))
        rows.append(PostgresNullableArray(sorted.map(\.ref)))
        rows.append(PostgresNullableArray(sorted.map(\.refererAppName)))
        rows.append(sorted.map(\.visitor))
        try await store.run(PostgresSQL.statement("insert_link_visitors"), rows, on: connection)
        let countRows = Self.inLockOrder(counts) { $0.key.sortKey }
        var countBinds = PostgresBindings()
        countBinds.append(countRows.map(\.key.day))
        countBinds.append(countRows.map(\.key.slug))
        countBinds.append(countRows.map(\.key.scope.rawValue))
        countBinds.append(PostgresNullableArray(countRows.map(\.key.ref)))
        countBinds.append(PostgresNullableArray(countRows.map(\.key.refererAppName)))
        countBinds.append(countRows.map { Int64($0.value) })
        try await store.run(PostgresSQL.statement("upsert_link_visitor_count"), countBinds, on: connection)
    }

    /// The bindings of `upsert_rollup(_day).sql`, groups in a fixed order.
    static func bindings(_ rows: [RollupKey: Int]) -> PostgresBindings {
        let sorted = inLockOrder(rows) { $0.key.sortKey }
        var binds = PostgresBindings()
        binds.append(sorted.map(\.key.bucket))
        binds.append(sorted.map(\.key.name))
        binds.append(PostgresNullableArray(sorted.map(\.key.ref)))
        binds.append(PostgresNullableArray(sorted.map(\.key.refererAppName)))
        binds.append(PostgresNullableArray(sorted.map(\.key.type)))
        binds.append(PostgresNullableArray(sorted.map(\.key.success)))
        binds.append(PostgresNullableArray(sorted.map(\.key.sourceURLHost)))
        binds.append(PostgresNullableArray(sorted.map(\.key.error)))
        binds.append(sorted.map { Int64($0.value) })
        return binds
    }

    /// The bindings of `upsert_link_rollup(_day).sql`, groups in a fixed order.
    static func bindings(_ rows: [LinkRollupKey: Int]) -> PostgresBindings {
        let sorted = inLockOrder(rows) { $0.key.sortKey }
        var binds = PostgresBindings()
        binds.append(sorted.map(\.key.bucket))
        binds.append(sorted.map(\.key.name))
        binds.append(sorted.map(\.key.slug))
        binds.append(PostgresNullableArray(sorted.map(\.key.origin)))
        binds.append(PostgresNullableArray(sorted.map(\.key.ref)))
        binds.append(PostgresNullableArray(sorted.map(\.key.refererAppName)))
        binds.append(PostgresNullableArray(sorted.map(\.key.status)))
        binds.append(PostgresNullableArray(sorted.map(\.key.crawler)))
        binds.append(sorted.map { Int64($0.value) })
        return binds
    }

    /// `elements` in the writers' lock order: by `sortKey` (``order(_:_:)``), each key made once, not at every
    /// comparison (a batch of random events has about one group per event, and the keys' text was most of a
    /// write's client time).
    static func inLockOrder<Element>(_ elements: some Collection<Element>, by sortKey: (Element) -> [String?])
        -> [Element]
    {
        elements.map { (key: sortKey($0), element: $0) }.sorted { order($0.key, $1.key) }.map(\.element)
    }

    /// A total order of sort keys: element by element, `nil` first, text by its bytes (so that text that differs
    /// only in Unicode normalisation, two rows of the tables, is never taken for one: every writer locks the rows in
    /// this one order).
    static func order(_ left: [String?], _ right: [String?]) -> Bool {
        for (a, b) in zip(left, right) where !a.hasSameBytes(as: b) {
            guard let a else { return true }
            guard let b else { return false }
            return a.utf8.lexicographicallyPrecedes(b.utf8)
        }
        return left.count < right.count
    }
}
