import CSQLite
import EventIngest
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// `alstats prune` on SQLite (SQLitePrune, RetentionHorizon, docs/design/retention.md): raw events before the cut-off
/// go with their ids, the rollups keep the history, the writers refuse older events, and the file gives the pages
/// back without holding another writer for more than one transaction.
struct PruneTests {
    static let day: Int64 = 86_400_000
    /// 2026-03-22T00:00:00Z, where ``generatedEvents(count:seed:start:days:)`` starts.
    static let start: Int64 = 1_774_137_600_000
    /// The cut-off of most tests: five days in.
    static let cutoff = start + 5 * day

    /// A store holding 12 days of generated events, its id index merged into every level.
    static func store(at path: String, events: Int = 2_000) throws -> SQLiteEventStore {
        let store = try SQLiteEventStore(path: path)
        store.withConnection {
            $0.writer.ids.mergeThreshold = 400
            $0.writer.ids.freshLimit = 150
        }
        let all = generatedEvents(count: events, seed: 7)
        for batch in stride(from: 0, to: all.count, by: 300) {
            try store.write(Array(all[batch..<min(all.count, batch + 300)]))
        }
        return store
    }

    /// Every entry of the id index, fresh level included, as (key, rowid): what must match the events one to one.
    static func indexEntries(_ store: SQLiteEventStore) throws -> Int64 {
        try store.withConnection { store throws(SQLiteError) in
            try store.connection.scalarInt(
                "SELECT (SELECT count(*) FROM event_ids) + (SELECT count(*) FROM event_ids_recent) + "
                    + "(SELECT count(*) FROM events WHERE rowid > (SELECT through_event FROM event_ids_moved))")
        }
    }

    static func oldestEvent(_ store: SQLiteEventStore) throws -> Int64 {
        try store.withConnection { store throws(SQLiteError) in
            try store.connection.scalarInt("SELECT min(ts_ms) FROM events")
        }
    }

    @Test func deletesTheEventsBeforeTheCutoffWithTheirIDsAndRecordsTheHorizon() throws {
        let database = TemporaryDatabase()
        let store = try Self.store(at: database.path)
        let before = try store.count()
        let kept = generatedEvents(count: 2_000, seed: 7).filter { $0.timestamp >= Self.cutoff }.count
        #expect(try store.rawEventsSince() == nil)
        let dry = try store.prune(before: Self.cutoff, options: PruneOptions(dryRun: true))
        #expect(dry.events == before - kept && dry.rawEventsSince == Self.cutoff)
        #expect(try store.count() == before && store.rawEventsSince() == nil, "a dry run changes nothing")
        let summary = try store.prune(before: Self.cutoff, options: PruneOptions(batchSize: 97))
        #expect(summary.events == before - kept)
        #expect(try store.count() == kept)
        #expect(try store.rawEventsSince() == Self.cutoff)
        #expect(try Self.oldestEvent(store) >= Self.cutoff)
        #expect(try Self.indexEntries(store) == Int64(kept), "no entry of the id index outlives its event")
        // An earlier cut-off later deletes nothing more, and the horizon never moves back.
        let again = try store.prune(before: Self.cutoff - 2 * Self.day, options: PruneOptions())
        #expect(again.events == 0 && again.rawEventsSince == Self.cutoff)
        #expect(throws: StoreError.self) { try store.prune(before: Self.cutoff + 1, options: PruneOptions()) }
    }

    @Test func everyWriterRefusesEventsOlderThanTheHorizonAndCountsThem() throws {
        let database = TemporaryDatabase()
        let store = try Self.store(at: database.path, events: 600)
        try store.prune(before: Self.cutoff, options: PruneOptions())
        let stored = try store.count()
        let old = numberedEvents(40).map {
            MeasurementEvent(
                id: $0.id, name: $0.name, fields: $0.fields, timestamp: Self.cutoff - 1 - $0.timestamp % 1_000)
        }
        let fresh = numberedEvents(10, start: 100).map {
            MeasurementEvent(id: $0.id, name: $0.name, fields: $0.fields, timestamp: Self.cutoff)
        }
        // The store's own write, the collector's encoded batches, a sink and an ingest: each refuses ten old events.
        #expect(try store.write(Array(old[0..<10]) + Array(fresh[0..<3])) == 3)
        #expect(try store.writeBatches(encoded: [store.encode(Array(old[10..<20]) + Array(fresh[3..<6]))]) == [3])
        let sink = try SQLiteEventSink(path: database.path)
        try sink.write(Array(old[20..<30]) + Array(fresh[6..<8]))
        try sink.close()
        let file = database.file("old.ndjson")
        let lines = (Array(old[30..<40]) + Array(fresh[8..<10])).map(NDJSONCodec.line(for:))
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in })
        #expect(summary.stored == 2)
        #expect(try store.count() == stored + 10)
        #expect(try store.completeness()["rejected"]?["before_retention"] == 40)
        #expect(try Self.oldestEvent(store) >= Self.cutoff)
    }

    @Test func theKeptEventsStillDeduplicateAfterAPrune() throws {
        let database = TemporaryDatabase()
        let store = try Self.store(at: database.path)
        try store.prune(before: Self.cutoff, options: PruneOptions(batchSize: 50))
        let count = try store.count()
        let all = generatedEvents(count: 2_000, seed: 7)
        #expect(try store.write(all) == 0, "kept ones are duplicates, pruned ones are refused")
        let reopened = try SQLiteEventStore(path: database.path)
        #expect(try reopened.writeBatches(encoded: [reopened.encode(all.shuffled())]) == [0])
        #expect(try store.count() == count)
        #expect(try store.completeness()["rejected"]?["before_retention"] == 2 * (all.count - count))
    }

    /// The install path's events before the cut-off (store taps, installs, first opens, deferred opens) are the
    /// report's only record of the install funnel: a prune keeps them, with their ids, and deletes every other event
    /// before it, packed ones (whose `extra` is gone) and other `al_nav_in` included.
    @Test func keepsTheInstallPathsEventsAndDeletesEveryOtherOld() throws {
        let database = TemporaryDatabase()
        let store = try Self.store(at: database.path, events: 4_200)
        try store.pack()  // packed rows have no `extra`: an al_nav_in among them is not a deferred open
        let target = "https://go.example.com/l/invite?" + String(repeating: "campaign=spring&", count: 8)
        func event(_ name: String, _ fields: [String: String], _ number: Int) -> MeasurementEvent {
            MeasurementEvent(
                id: EventID("install-\(number)"), name: name, fields: fields,
                timestamp: Self.start + Int64(number) * 3_600_000)
        }
        let kept = [
            event(EventName.linkStore, ["slug": "invite", "platform": "ios"], 1),
            event(EventName.linkInstall, ["slug": "invite", "platform": "android", "delay_ms": "5000"], 2),
            event(EventName.firstOpen, ["attributed": "1"], 3),
            event(EventName.firstOpen, [:], 4),
            event(EventName.navIn, [FieldName.targetURL: target, "deferred": "1"], 5),
        ]
        let pruned = [
            event(EventName.navIn, [FieldName.targetURL: target, "deferred": "0"], 6),
            event(EventName.navIn, [FieldName.targetURL: target], 7),
            event("alstats_link_hit", ["slug": "invite", "status": "200"], 8),
        ]
        #expect(try store.write(kept + pruned) == 8)
        let old = try store.withConnection { store throws(SQLiteError) in
            try store.connection.scalarInt("SELECT count(*) FROM events WHERE ts_ms < \(Self.cutoff)")
        }
        let dry = try store.prune(before: Self.cutoff, options: PruneOptions(dryRun: true))
        #expect(dry.events == Int(old) - kept.count)
        let summary = try store.prune(before: Self.cutoff, options: PruneOptions(batchSize: 97))
        #expect(summary.events == Int(old) - kept.count)
        let left = try store.withConnection { store throws(SQLiteError) in
            try store.connection.scalarInt(
                "SELECT count(*) FROM events WHERE ts_ms < \(Self.cutoff) AND id IN "
                    + "('install-1', 'install-2', 'install-3', 'install-4', 'install-5')")
        }
        #expect(try store.count() == 4_200 + 8 - Int(old) + kept.count)
        #expect(left == Int64(kept.count), "only the install path's events are left before the cut-off")
        let stored = try store.count()
        #expect(try store.write(kept + pruned) == 0, "all are before the horizon: refused")
        #expect(try store.count() == stored)
    }

    /// The greatest rowid is an old event (a late arrival): the prune frees it, SQLite gives it to the next event,
    /// and a writer that had seen that rowid before must not take its new event for one it knows is new.
    @Test func aFreedRowidGivenToANewEventStillDeduplicatesOnEveryConnection() throws {
        let database = TemporaryDatabase()
        let store = try Self.store(at: database.path, events: 500)
        let late = MeasurementEvent(id: EventID("late"), name: "signup", fields: [:], timestamp: Self.start)
        #expect(try store.write([late]) == 1)
        let writer = try SQLiteEventStore(path: database.path)
        #expect(try writer.write(generatedEvents(count: 500, seed: 7)) == 0, "its filter now holds every key")
        try store.prune(before: Self.cutoff, options: PruneOptions())
        let next = MeasurementEvent(id: EventID("next"), name: "signup", fields: [:], timestamp: Self.cutoff + 1)
        #expect(try store.write([next]) == 1)
        #expect(try writer.write([next]) == 0, "the writer forgot the freed rowid, and finds the new event's id")
        #expect(
            try store.count() == generatedEvents(count: 500, seed: 7).filter { $0.timestamp >= Self.cutoff }.count + 1)
    }

    @Test func aWriterBesideThePruneNeverWaitsForMoreThanOneTransaction() throws {
        let database = TemporaryDatabase()
        let store = try Self.store(at: database.path)
        // Another connection that never waits for a lock: a write fails at once while the prune holds the file.
        let beside = try SQLiteEventStore(path: database.path, options: .init(busyTimeout: .zero))
        let writes = StateLock(0)
        var options = PruneOptions(batchSize: 100, vacuumPagesPerStep: 4)
        options.afterTransaction = { transaction in
            let event = MeasurementEvent(
                id: EventID("beside-\(transaction)"), name: "signup", fields: [:], timestamp: Self.cutoff + 1)
            if (try? beside.write([event])) == 1 { writes.withLock { $0 += 1 } }
        }
        let summary = try store.prune(before: Self.cutoff, options: options)
        // The horizon, the events and their ids in batches of 100, the visitors, and the vacuum's steps.
        #expect(summary.transactions >= 1 + 2 * (summary.events / 100))
        #expect(writes.withLock { $0 } == summary.transactions, "every write between two transactions went in")
    }

    @Test func theFileGivesBackThePagesOfThePrunedEvents() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path, options: .init(packFields: false))
        let events = numberedEvents(6_000, padding: 600).enumerated().map { index, event in
            MeasurementEvent(
                id: event.id, name: event.name, fields: event.fields, timestamp: Self.start + Int64(index) * 120_000)
        }
        try store.write(events)
        try store.reclaimSpace()  // the WAL into the file
        let before = bytes(database.path)
        let cutoff = RetentionPeriod.dayStart(of: Self.start + 6 * Self.day)
        let summary = try store.prune(before: cutoff, options: PruneOptions())
        guard case .returned(let returned) = summary.space else {
            Issue.record("a new file uses incremental vacuum: \(summary.space)")
            return
        }
        #expect(returned > before / 2)
        try store.withConnection { store throws(SQLiteError) in
            _ = try store.connection.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        #expect(bytes(database.path) < before / 2)
    }

    @Test func aFileWithoutIncrementalVacuumIsRebuiltOnceWhenAsked() throws {
        let database = TemporaryDatabase()
        // A file that existed before incremental vacuum: auto_vacuum NONE, which only a new file can change.
        var handle: OpaquePointer?
        sqlite3_open(database.path, &handle)
        sqlite3_exec(
            handle, "PRAGMA page_size = 16384; CREATE TABLE made_before (x); PRAGMA journal_mode = WAL", nil, nil, nil)
        sqlite3_close(handle)
        let store = try SQLiteEventStore(path: database.path)
        try store.write(
            numberedEvents(3_000, padding: 300).map {
                MeasurementEvent(
                    id: $0.id, name: $0.name, fields: $0.fields, timestamp: Self.start + $0.timestamp % 1_000)
            })
        let summary = try store.prune(before: Self.cutoff, options: PruneOptions())
        guard case .needsFullVacuum(let free) = summary.space else {
            Issue.record("expected a file that needs a full vacuum: \(summary.space)")
            return
        }
        #expect(free > 0)
        let rebuilt = try store.prune(before: Self.cutoff, options: PruneOptions(fullVacuum: true))
        guard case .returned(let returned) = rebuilt.space else {
            Issue.record("a full vacuum gives the pages back: \(rebuilt.space)")
            return
        }
        #expect(returned + 16_384 >= free, "every free page, less the pointer map's first page")
        let mode = try SQLiteEventStore(path: database.path).withConnection { store throws(SQLiteError) in
            try store.connection.scalarInt("PRAGMA auto_vacuum")
        }
        #expect(mode == 2, "the file now uses incremental vacuum")
    }

    @Test func rebuildingTheRollupsAfterAPruneKeepsTheirHistory() throws {
        let database = TemporaryDatabase()
        let store = try Self.store(at: database.path, events: 800)
        let reader = ReportReader(store: store)
        let before = try reader.rows(for: ReportQuery())
        try store.prune(before: Self.cutoff, options: PruneOptions())
        try store.rebuildRollups()
        let after = try reader.rows(for: ReportQuery())
        #expect(after.groups == before.groups && after.buckets == before.buckets)
    }

    private func bytes(_ path: String) -> Int {
        [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }
}
