import EventIngest
import Foundation
import MeasurementEvents
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// Exact dedup through the id index's three levels (Migrations/0011_index_event_ids_by_key.sql,
/// 0013_add_fresh_event_ids.sql, 0014_derive_fresh_event_ids.sql, EventIDIndex).
struct EventIDIndexTests {
    /// `count` events with random UUIDv4 ids from a seeded generator.
    static func randomEvents(_ count: Int, seed: UInt64) -> [MeasurementEvent] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var bits = state
            bits = (bits ^ (bits >> 30)) &* 0xBF58_476D_1CE4_E5B9
            bits = (bits ^ (bits >> 27)) &* 0x94D0_49BB_1331_11EB
            return bits ^ (bits >> 31)
        }
        return (0..<count).map { index in
            let id = EventID(uuidHigh: next() & ~0xF000 | 0x4000, low: 0x8000_0000_0000_0000 | next() >> 2)
            return MeasurementEvent(
                id: id, name: EventName.navIn, fields: [FieldName.ref: "r\(index % 5)"],
                timestamp: 1_762_128_000_000 + Int64(index) * 1_000)
        }
    }

    /// The fresh, recent and large levels' entry counts (the fresh level: the events after the last move).
    static func levels(_ store: SQLiteEventStore) throws -> (fresh: Int64, recent: Int64, large: Int64) {
        try store.withConnection { store throws(SQLiteError) in
            (
                try store.connection.scalarInt(
                    "SELECT count(*) FROM events WHERE rowid > (SELECT through_event FROM event_ids_moved)"),
                try store.connection.scalarInt("SELECT count(*) FROM event_ids_recent"),
                try store.connection.scalarInt("SELECT count(*) FROM event_ids")
            )
        }
    }

    @Test func randomIDsAreStoredOnceAcrossBatchesRunsAndMerges() throws {
        let database = TemporaryDatabase()
        let events = Self.randomEvents(3_000, seed: 1)
        do {
            let store = try SQLiteEventStore(path: database.path)
            store.withConnection {
                $0.writer.ids.mergeThreshold = 700
                $0.writer.ids.freshLimit = 300
            }
            #expect(try store.write(Array(events[0..<1_000])) == 1_000)
            // Overlapping batches: half of each is already stored, by the previous batch or merged into the large level.
            #expect(try store.write(Array(events[500..<1_500])) == 500)
            #expect(try store.write(Array(events[1_000..<2_000]) + Array(events[0..<100])) == 500)
            let (fresh, recent, large) = try Self.levels(store)
            #expect(large >= 1_000)
            #expect(fresh + recent + large == 2_000)
        }
        let reopened = try SQLiteEventStore(path: database.path)
        reopened.withConnection {
            $0.writer.ids.mergeThreshold = 700
            $0.writer.ids.freshLimit = 300
        }
        #expect(try reopened.write(events) == 1_000)
        #expect(try reopened.write(events.shuffled()) == 0)
        #expect(try reopened.count() == 3_000)
    }

    @Test func theSameIDTwiceInOneBatchIsStoredOnceAsItsFirstEvent() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let first = Self.randomEvents(1, seed: 2)[0]
        let second = MeasurementEvent(id: first.id, name: "other", fields: [:], timestamp: first.timestamp + 1)
        #expect(try store.write([first, second, first]) == 1)
        var names: [String] = []
        try store.export { line in names.append(String(decoding: line, as: UTF8.self)) }
        #expect(names.count == 1)
        #expect(names.first?.contains(#""name":"al_nav_in""#) == true)
    }

    @Test func aBatchIsStoredInTheOrderItCameWhateverItsIDs() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let events = Self.randomEvents(200, seed: 6)
        #expect(try store.write(events + events[0..<10]) == 200)
        let stored = try store.withConnection { store throws(SQLiteError) in
            let statement = try store.connection.prepare("SELECT id FROM events ORDER BY rowid")
            var ids: [EventID] = []
            while try statement.step() { ids.append(EventColumns.readID(statement, column: 0)) }
            return ids
        }
        #expect(stored == events.map(\.id))
    }

    @Test func twoWritersOnOneFileStoreEachTimeOrderedIDOnce() throws {
        let database = TemporaryDatabase()
        let first = try SQLiteEventStore(path: database.path)
        let second = try SQLiteEventStore(path: database.path)
        let events = (0..<3).map { index in
            let milliseconds = UInt64(1_762_128_000_000 + index * 1_000)
            return MeasurementEvent(
                id: EventID(uuidHigh: milliseconds << 16 | 0x7000, low: 0x8000_0000_0000_0000 | UInt64(index)),
                name: EventName.navIn, fields: [:], timestamp: Int64(milliseconds))
        }
        #expect(try second.write([events[0]]) == 1)
        // The first writer stores greater keys than the second has seen; the second must still find them.
        #expect(try first.write([events[1], events[2]]) == 2)
        #expect(try second.write(events) == 0)
        #expect(try first.count() == 3)
    }

    @Test func twoWritersOnOneFileStoreEachRandomIDOnceWhateverTheFilterOfEachHolds() throws {
        let database = TemporaryDatabase()
        let first = try SQLiteEventStore(path: database.path)
        let second = try SQLiteEventStore(path: database.path)
        for store in [first, second] { store.withConnection { $0.writer.ids.minimumFilterCapacity = 64 } }
        let events = Self.randomEvents(2_000, seed: 7)
        // Each writer builds its filter on its first lookup, then the other stores ids it has never seen:
        // each must find the other's ids before it looks up (and grow its filter past 64 keys on the way).
        #expect(try first.write(Array(events[0..<100])) == 100)
        #expect(try second.write(Array(events[0..<200])) == 100)
        #expect(try first.write(Array(events[100..<1_000])) == 800)
        #expect(try second.write(Array(events[0..<1_500])) == 500)
        #expect(try first.write(events.shuffled()) == 500)
        #expect(try second.write(events) == 0)
        #expect(try first.count() == 2_000)
    }

    @Test func aFilterGrownWithinATransactionKeepsEveryKey() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        store.withConnection { $0.writer.ids.minimumFilterCapacity = 32 }
        let events = Self.randomEvents(1_000, seed: 8)
        try store.withConnection { store throws(SQLiteError) in
            for start in stride(from: 0, to: 1_000, by: 50) {
                try store.writer.write(Array(events[start..<start + 50]) + Array(events[0..<start / 2]))
            }
            try store.writer.commit()
        }
        #expect(try store.write(events) == 0)
        #expect(try store.count() == 1_000)
    }

    /// The collector's shape: many small commits, the fresh level (held in memory) holding most keys. The filter
    /// grows by doubling, a few times in all, instead of being built again at every event once the fresh entries
    /// outnumber the stored ones.
    @Test func aFilterGrowsAFewTimesWhileTheFreshLevelHoldsMostKeys() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        store.withConnection {
            $0.writer.ids.minimumFilterCapacity = 64
            $0.writer.ids.freshLimit = 1_500
        }
        let events = Self.randomEvents(3_000, seed: 12)
        for start in stride(from: 0, to: 3_000, by: 50) {
            #expect(try store.write(Array(events[start..<start + 50])) == 50)
        }
        #expect(try store.write(events.shuffled()) == 0)
        // 64 keys doubling to 3,000: six builds, plus one after each of the two moves at most.
        let builds = store.withConnection { $0.writer.ids.filterBuilds }
        #expect(builds <= 10, "the filter was built \(builds) times for 3,000 events")
    }

    /// Told how many keys to expect, the index builds its filter once for all of them instead of doubling it
    /// (six builds or more for these 3,000 keys without the estimate, the test above).
    @Test func aFilterSizedForTheExpectedKeysIsBuiltOnce() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        store.withConnection {
            $0.writer.ids.minimumFilterCapacity = 64
            $0.writer.ids.expectedNewKeys = 3_000
        }
        let events = Self.randomEvents(3_000, seed: 13)
        for start in stride(from: 0, to: 3_000, by: 50) {
            #expect(try store.write(Array(events[start..<start + 50])) == 50)
        }
        #expect(try store.write(events.shuffled()) == 0)
        #expect(store.withConnection { $0.writer.ids.filterBuilds } == 1)
    }

    /// An ingest of a file estimates the events still to come from the bytes left to read, so its filter is
    /// built about once (not at every doubling) and no duplicate gets through it.
    @Test func anIngestOfAFileSizesTheFilterFromItsBytes() throws {
        let database = TemporaryDatabase()
        let file = database.file("events.ndjson")
        let events = Self.randomEvents(20_000, seed: 14)
        try (events + events[0..<2_000]).map(NDJSONCodec.line(for:)).joined(separator: "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        store.withConnection { $0.writer.ids.minimumFilterCapacity = 64 }
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in })
        #expect(summary.stored == 20_000)
        #expect(summary.duplicates == 2_000)
        let builds = store.withConnection { $0.writer.ids.filterBuilds }
        #expect(builds == 1, "the filter was built \(builds) times for 22,000 lines")
    }

    @Test func theKeyFilterHasNoFalseNegativesAndFewFalsePositives() {
        var filter = EventIDKeyFilter(capacity: 100_000)
        let stored = Self.randomEvents(100_000, seed: 9).map { EventIDKey.key($0.id) }
        for key in stored { filter.insert(key) }
        #expect(stored.allSatisfy { filter.mayContain($0) })
        // Full at 8 bits a key: about 3.4% of the keys never added test positive; UUIDv7 keys (time-ordered) too.
        let others = Self.randomEvents(100_000, seed: 10).map { EventIDKey.key($0.id) }
        let times = (0..<100_000).map { Int64($0) << 16 | 0x0123 + 1_762_128_000_000 << 16 }
        for keys in [others, times] {
            let positives = keys.filter { filter.mayContain($0) }.count
            #expect(positives < 4_000, "\(positives) false positives in 100,000")
        }
    }

    @Test(arguments: [1, 1_000])
    func twoIDsWithOneKeyAreTwoEventsAndEachStaysDeduplicated(mergeThreshold: Int) throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        store.withConnection { store in
            store.writer.ids.key = { _ in 42 }
            store.writer.ids.mergeThreshold = mergeThreshold
            store.writer.ids.freshLimit = mergeThreshold  // 1: every level; 1,000: the fresh level only
        }
        let uuids = Self.randomEvents(2, seed: 3)
        let text = MeasurementEvent(id: EventID("order-17"), name: "purchase", fields: [:], timestamp: 1)
        #expect(try store.write([uuids[0]]) == 1)
        #expect(try store.write([uuids[1], text]) == 2)
        #expect(try store.write(uuids + [text]) == 0)
        #expect(try store.count() == 3)
        let (fresh, recent, large) = try Self.levels(store)
        #expect(fresh + recent + large == 3)
        let keys = try store.withConnection { store throws(SQLiteError) in
            try store.connection.scalarInt(
                "SELECT count(DISTINCT key) FROM (SELECT key FROM event_ids UNION ALL SELECT key FROM event_ids_recent)"
            )
        }
        // Stored under the one key when moved; in the fresh level (not stored) otherwise.
        #expect(keys == (mergeThreshold == 1 ? 1 : 0))
        #expect(fresh == (mergeThreshold == 1 ? 0 : 3))
    }

    @Test func aRolledBackWriteLeavesNoIndexEntryBehind() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let events = Self.randomEvents(10, seed: 4)
        try store.withConnection { store throws(SQLiteError) in
            try store.writer.write(events)
            store.writer.rollback()
        }
        let (fresh, recent, large) = try Self.levels(store)
        #expect(fresh == 0 && recent == 0 && large == 0)
        #expect(try store.write(events) == 10)
    }

    /// After a full disk or an I/O error SQLite may roll the transaction back by itself: the id entries the
    /// writer held for its commit belong to rows that are gone, and the same events written again (with the
    /// same rowids) must store once, not fail on entries left from before.
    @Test func eventsWrittenAgainAfterSQLiteRolledBackByItselfAreStoredOnce() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let events = Self.randomEvents(300, seed: 11)
        try store.withConnection { store throws(SQLiteError) in
            #expect(try store.writer.write(events) == 300)
            try store.connection.execute("ROLLBACK")  // as SQLite does after SQLITE_FULL
            #expect(throws: SQLiteError.self) { try store.writer.commit() }
            #expect(try store.writer.write(events) == 300)
            try store.writer.commit()
        }
        #expect(try store.write(events) == 0)
        #expect(try store.count() == 300)
        let (fresh, recent, large) = try Self.levels(store)
        #expect(fresh + recent + large == 300)
    }

    /// The collector commits a few thousand events at a time: they go to the fresh level, appended, until it
    /// holds the fresh limit, and then all of it moves into the recent level. Every level dedups.
    @Test func smallCommitsAppendToTheFreshLevelUntilItMovesIntoTheRecentOne() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        store.withConnection { $0.writer.ids.freshLimit = 2_500 }
        let events = Self.randomEvents(4_000, seed: 21)
        #expect(try store.write(Array(events[0..<1_000])) == 1_000)
        #expect(try store.write(Array(events[500..<2_000])) == 1_000)
        var levels = try Self.levels(store)
        #expect(levels.fresh == 2_000 && levels.recent == 0)
        #expect(try store.write(Array(events[1_500..<3_000])) == 1_000)
        levels = try Self.levels(store)
        #expect(levels.fresh == 0 && levels.recent == 3_000)
        #expect(try store.write(Array(events[2_900..<4_000])) == 1_000)
        levels = try Self.levels(store)
        #expect(levels.fresh == 1_000 && levels.recent == 3_000)
        #expect(try store.write(events.shuffled()) == 0)
        #expect(try store.count() == 4_000)
    }

    /// The fresh entries are committed with their events: a transaction rolled back after some were committed
    /// forgets only its own, and the committed ones still dedup.
    @Test func aRollbackKeepsTheFreshEntriesCommittedBeforeIt() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let events = Self.randomEvents(200, seed: 22)
        #expect(try store.write(Array(events[0..<100])) == 100)
        try store.withConnection { store throws(SQLiteError) in
            #expect(try store.writer.write(Array(events[100..<200])) == 100)
            store.writer.rollback()
        }
        #expect(try store.write(events) == 100)
        #expect(try store.count() == 200)
        #expect(try Self.levels(store).fresh == 200)
    }

    /// Another connection's fresh entries (another process writing the same file) are read again before a
    /// write, and they survive closing: dedup stays exact across connections and reopening.
    @Test func anotherConnectionsFreshEntriesDedupHereAndAfterReopening() throws {
        let database = TemporaryDatabase()
        let events = Self.randomEvents(900, seed: 23)
        let first = try SQLiteEventStore(path: database.path)
        let second = try SQLiteEventStore(path: database.path)
        #expect(try first.write(Array(events[0..<300])) == 300)
        #expect(try second.write(Array(events[0..<600])) == 300)
        #expect(try first.write(Array(events[200..<900])) == 300)
        #expect(try second.write(events) == 0)
        #expect(try Self.levels(first).fresh == 900)
        let reopened = try SQLiteEventStore(path: database.path)
        #expect(try reopened.write(events.reversed()) == 0)
        #expect(try reopened.count() == 900)
    }

    @Test func theSQLKeyFunctionGivesEveryStoredIDTheWritersKey() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let events =
            Self.randomEvents(50, seed: 5) + [
                MeasurementEvent(id: EventID("text-id"), name: "a", fields: [:], timestamp: 1),
                MeasurementEvent(id: EventID("ÉTÉ-é"), name: "a", fields: [:], timestamp: 2),
                MeasurementEvent(
                    id: EventID("0192F5C3-8A1B-7C4D-9E2F-0123456789AB"), name: "a", fields: [:], timestamp: 3),
            ]
        store.withConnection { $0.writer.ids.freshLimit = 1 }  // stored in the recent level
        #expect(try store.write(events) == 53)
        let (entries, mismatches) = try store.withConnection { store throws(SQLiteError) in
            let levels =
                "(SELECT key, event FROM event_ids_recent UNION ALL SELECT key, event FROM event_ids) AS k "
                + "JOIN events AS e ON e.rowid = k.event"
            return (
                try store.connection.scalarInt("SELECT count(*) FROM \(levels)"),
                try store.connection.scalarInt("SELECT count(*) FROM \(levels) WHERE k.key != alstats_id_key(e.id)")
            )
        }
        #expect(entries == 53)
        #expect(mismatches == 0)
    }

    @Test func uuidV7IdsOfLaterMillisecondsGetGreaterKeysAndTheKeyNeverChanges() {
        let ids = (0..<100).map { index in
            let milliseconds = UInt64(1_762_128_000_000 + index)
            return EventID(uuidHigh: milliseconds << 16 | 0x7000 | 0xABC, low: 0x8000_0000_0000_0001)
        }
        let keys = ids.map(EventIDKey.key)
        #expect(keys == keys.sorted())
        #expect(Set(keys).count == 100)
        // Every other id gets a negative key, below the UUIDv7 keys, so that it never hides their order.
        #expect(Self.randomEvents(100, seed: 7).allSatisfy { EventIDKey.key($0.id) < 0 })
        #expect(keys.allSatisfy { $0 > 0 })
        // Stored keys must be the same in every process and version: these are the values of today's function.
        #expect(EventIDKey.key(EventID("0192f5c3-8a1b-7c4d-9e2f-0123456789ab")) == 0x0192_f5c3_8a1b_f3d2)
        #expect(EventIDKey.key(EventID("order-17")) == -6_723_522_461_579_702_178)
    }
}

/// Migration 0014 on a database whose fresh level was stored (schema 13): its entries move into the recent
/// level, the move mark is the last event, and every id stays stored once.
struct FreshLevelMigrationTests {
    @Test func storedFreshEntriesMoveIntoTheRecentLevelAndStillDedup() throws {
        let database = TemporaryDatabase()
        let events = EventIDIndexTests.randomEvents(300, seed: 31)
        do {
            // Schema 13 as its writer left it: 200 events, the first 120 moved to the recent level, 80 fresh.
            let connection = try SQLiteConnection(path: database.path, create: true)
            try EventIDKey.register(on: connection)
            let thirteen = Array(EmbeddedSQL.migrations.prefix { ($0.migrationVersion ?? 0) <= 13 })
            try SchemaMigrator(migrations: thirteen).migrate(connection)
            #expect(try connection.scalarInt("PRAGMA user_version") == 13)
            let insert = try connection.prepare("INSERT INTO events (id, ts_ms, name) VALUES (?1, ?2, ?3)")
            let recent = try connection.prepare("INSERT INTO event_ids_recent (key, event) VALUES (?1, ?2)")
            let fresh = try connection.prepare("INSERT INTO event_ids_fresh (event, key) VALUES (?1, ?2)")
            for (offset, event) in events[0..<200].enumerated() {
                EventColumns.bindID(event.id, at: 1, to: insert)
                insert.bind(2, event.timestamp)
                insert.bind(3, event.name)
                try insert.run()
                let level = offset < 120 ? recent : fresh
                level.bind(offset < 120 ? 1 : 2, EventIDKey.key(event.id))
                level.bind(offset < 120 ? 2 : 1, connection.lastInsertRowID)
                try level.run()
            }
        }
        let store = try SQLiteEventStore(path: database.path)
        #expect(try store.schemaVersion == SQLiteEventStore.latestSchemaVersion)
        let (fresh, recent, large) = try EventIDIndexTests.levels(store)
        #expect(fresh == 0 && recent == 200 && large == 0)
        #expect(try store.write(events.reversed()) == 100)
        #expect(try store.write(events) == 0)
        #expect(try store.count() == 300)
        #expect(try EventIDIndexTests.levels(store).fresh == 100)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'event_ids_fresh'") == 0)
        #expect(try connection.scalarText("PRAGMA integrity_check") == "ok")
    }
}
