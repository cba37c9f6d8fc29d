#if Server

import EventIngest
import Foundation
import MeasurementEvents
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// `alstats prune` on PostgreSQL (PostgresPrune, docs/design/retention.md): whole months dropped, the month the
/// cut-off cuts deleted in batches, the report unchanged for windows of whole buckets, older events refused by every
/// write, and the locks it takes given up after their timeout instead of holding writers or readers up.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresPruneTests {
    static let day: Int64 = 86_400_000
    /// 2026-01-10T00:00:00Z: the events run to 2026-04-10.
    static let start: Int64 = 1_768_003_200_000
    /// 2026-03-15T00:00:00Z: January and February lie before it, March in part.
    static let cutoff: Int64 = 1_773_532_800_000
    static let events = generatedEvents(count: 3_000, seed: 11, start: start, days: 90)

    /// A store holding ``events``.
    static func store(_ url: String) async throws -> PostgresEventStore {
        let store = try await PostgresEventStore.open(url: url)
        for batch in stride(from: 0, to: events.count, by: 500) {
            try await store.write(Array(events[batch..<min(events.count, batch + 500)]))
        }
        return store
    }

    static func tableExists(_ url: String, _ name: String) async throws -> Bool {
        try await PostgresTestDatabase.column(url, "SELECT to_regclass('\(name)') IS NOT NULL", as: Bool.self) == [true]
    }

    @Test func dropsTheMonthsBeforeTheCutoffAndDeletesThePartOfTheMonthItCuts() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await Self.store(url)
            let kept = Self.events.filter { $0.timestamp >= Self.cutoff }.count
            let dry = try await store.prune(before: Self.cutoff, options: PruneOptions(dryRun: true))
            #expect(dry.partitionsDropped == ["events_2026_01", "events_2026_02"])
            #expect(dry.events == Self.events.count - kept)
            #expect(try await store.count() == Self.events.count, "a dry run changes nothing")
            let summary = try await store.prune(before: Self.cutoff, options: PruneOptions(batchSize: 40))
            #expect(summary.partitionsDropped == ["events_2026_01", "events_2026_02"] && summary.deferred.isEmpty)
            #expect(summary.events == Self.events.count - kept)
            #expect(try await store.count() == kept)
            #expect(try await store.rawEventsSince() == Self.cutoff)
            #expect(try await !Self.tableExists(url, "events_2026_01"))
            #expect(try await Self.tableExists(url, "events_2026_03"))
            let ids = try await PostgresTestDatabase.column(url, "SELECT count(*)::bigint FROM event_ids", as: Int.self)
            #expect(ids == [kept], "no id outlives its event")
            let cut = Self.events.filter { $0.timestamp >= 1_772_323_200_000 && $0.timestamp < Self.cutoff }.count
            // The horizon, two transactions per month dropped, and March's part in batches of 40.
            #expect(summary.transactions >= 1 + 2 * 2 + cut / 40)
            await store.close()
        }
    }

    /// The report reads rollups for whole buckets and raw events only at edges inside a bucket: a window of whole
    /// buckets reads the same rows after the prune, and an edge before the horizon reads from its bucket's start.
    @Test func aReportOfWholeBucketsIsTheSameAfterThePrune() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await Self.store(url)
            let windows: [ReportQuery] = [
                ReportQuery(), ReportQuery(since: Self.start + 3 * Self.day, until: Self.cutoff + 9 * Self.day),
                ReportQuery(since: Self.start + 20 * Self.day + 900_000, until: Self.cutoff + 3 * Self.day - 2_700_000),
                ReportQuery(since: Self.start + 40 * Self.day, ref: "feed"),
            ]
            var before: [ReportRows] = []
            for query in windows { before.append(try await store.rows(for: query)) }
            let edge = ReportQuery(since: Self.start + 20 * Self.day + 900_000 + 7 * 60_000)
            let edgeBefore = try await store.rows(for: ReportQuery(since: Self.start + 20 * Self.day + 900_000))
            try await store.prune(before: Self.cutoff, options: PruneOptions())
            for (query, rows) in zip(windows, before) {
                var after = try await store.rows(for: query)
                #expect(after.rawEventsSince == Self.cutoff)
                after.rawEventsSince = nil
                #expect(after == rows, "\(query)")
            }
            var edgeAfter = try await store.rows(for: edge)
            edgeAfter.rawEventsSince = nil
            #expect(edgeAfter == edgeBefore, "an edge before the horizon reads from the start of its bucket")
            try await store.rebuildRollups()
            var rebuilt = try await store.rows(for: ReportQuery())
            rebuilt.rawEventsSince = nil
            #expect(rebuilt == before[0], "a rebuild keeps the rollups before the horizon")
            await store.close()
        }
    }

    /// The install path of link `invite` every 2 days from ``start`` on (a store tap, an install, a deferred open, a
    /// first open), and an `al_nav_in` that is not a deferred open: in the months the prune drops, in the one it
    /// cuts, and after.
    static let installPath: [MeasurementEvent] = stride(from: Int64(0), to: 45, by: 1).flatMap { step in
        let time = start + step * 2 * day + 7_200_000
        func event(_ kind: Int64, _ name: String, _ fields: [String: String]) -> MeasurementEvent {
            MeasurementEvent(id: EventID("install-\(step)-\(kind)"), name: name, fields: fields, timestamp: time + kind)
        }
        let target = "https://go.example.com/l/invite"
        return [
            event(0, EventName.linkStore, ["slug": "invite", "platform": step % 3 == 0 ? "ios" : "android"]),
            event(1, EventName.linkInstall, ["slug": "invite", "platform": "android", "delay_ms": "\(step * 9_000)"]),
            event(2, EventName.navIn, [FieldName.targetURL: target, "deferred": "1"]),
            event(3, EventName.firstOpen, step % 2 == 0 ? ["attributed": "1"] : [:]),
            event(4, EventName.navIn, [FieldName.targetURL: target]),
        ]
    }

    /// A prune keeps the install path's events before the cut-off in `pruned_install_events` (moved from the months
    /// it drops and from the month it cuts), deletes the others, and the report's install figures stay as they were.
    @Test func keepsTheInstallPathsEventsAndTheReportsInstallFigures() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await Self.store(url)
            try await store.write(Self.installPath)
            try await store.recordPublicURL(try #require(LinkPublicURL("https://go.example.com")))
            let windows = [ReportQuery(), ReportQuery(since: Self.start + 10 * Self.day, link: "invite")]
            var before: [ReportRows] = []
            for query in windows { before.append(try await store.rows(for: query)) }
            #expect(before[0].linkInstalls.first?.deferredOpens == 45 && before[0].firstOpens.firstOpens == 45)
            let all = Self.events + Self.installPath
            let old = all.filter { $0.timestamp < Self.cutoff }
            let keptOld = old.filter {
                [EventName.linkStore, EventName.linkInstall, EventName.firstOpen].contains($0.name)
                    || ($0.name == EventName.navIn && $0.fields["deferred"] == "1")
            }.count
            let dry = try await store.prune(before: Self.cutoff, options: PruneOptions(dryRun: true))
            let summary = try await store.prune(before: Self.cutoff, options: PruneOptions(batchSize: 40))
            #expect(dry.events == old.count - keptOld && summary.events == old.count - keptOld)
            #expect(try await store.count() == all.count - old.count)
            let moved = try await PostgresTestDatabase.column(
                url, "SELECT count(*)::bigint FROM pruned_install_events WHERE ts_ms < \(Self.cutoff)", as: Int.self)
            #expect(moved == [keptOld], "every install path event before the cut-off, and only those")
            for (query, rows) in zip(windows, before) {
                let after = try await store.rows(for: query)
                #expect(after.linkInstalls == rows.linkInstalls, "\(query)")
                #expect(after.firstOpens == rows.firstOpens, "\(query)")
            }
            await store.close()
        }
    }

    @Test func everyWriteRefusesEventsBeforeTheHorizonAndTheKeptOnesStillDeduplicate() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await Self.store(url)
            try await store.prune(before: Self.cutoff, options: PruneOptions())
            let kept = try await store.count()
            let old = Self.events.count - kept
            #expect(try await store.writeBatches([Self.events]) == [0])
            // A strict ingest writes in one transaction of its own.
            let folder = TemporaryDatabase()
            let file = folder.file("again.ndjson")
            let lines = Self.events.map(NDJSONCodec.line(for:)) + [NDJSONCodec.line(for: Self.late)]
            try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let summary = try await store.ingest(
                [IngestInput(path: file)], options: IngestOptions(strict: true), onInvalidLine: { _ in },
                progress: nil)
            #expect(summary.stored == 1)
            #expect(try await store.count() == kept + 1)
            #expect(try await store.completeness()["rejected"]?["before_retention"] == 2 * old)
            #expect(try await !Self.tableExists(url, "events_2026_01"), "no month is made for refused events")
            await store.close()
        }
    }

    static let late = MeasurementEvent(id: EventID("late"), name: "signup", fields: [:], timestamp: cutoff + 1)

    /// A write transaction under way holds the horizon's row: the prune waits for it at most its lock timeout,
    /// then fails having deleted nothing, instead of making every later write queue behind it.
    @Test func aPruneGivesUpOnAWriteThatHoldsTheHorizonAndDeletesNothing() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await Self.store(url)
            try await PostgresTestDatabase.withConnection(url) { connection in
                try await connection.query("BEGIN", logger: PostgresTestDatabase.logger)
                try await connection.query(
                    PostgresQuery(unsafeSQL: PostgresSQL.statement("lock_retention_horizon")),
                    logger: PostgresTestDatabase.logger)
                await #expect(throws: StoreError.self) {
                    try await store.prune(before: Self.cutoff, options: PruneOptions(lockTimeout: .milliseconds(200)))
                }
                try await connection.query("ROLLBACK", logger: PostgresTestDatabase.logger)
            }
            #expect(try await store.count() == Self.events.count)
            #expect(try await store.rawEventsSince() == nil)
            await store.close()
        }
    }

    /// A long read of `events` holds its partitions: dropping one waits at most the lock timeout, then leaves it for
    /// the next prune (its ids deleted, its events refused), which drops it.
    @Test func aMonthALongReadHoldsIsLeftForTheNextPrune() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await Self.store(url)
            let options = PruneOptions(lockTimeout: .milliseconds(200))
            let first = try await PostgresTestDatabase.withConnection(url) { connection in
                try await connection.query("BEGIN", logger: PostgresTestDatabase.logger)
                try await connection.query("SELECT count(*) FROM events_2026_01", logger: PostgresTestDatabase.logger)
                let pruned: Result<PruneSummary, StoreError>
                do throws(StoreError) {
                    pruned = .success(try await store.prune(before: Self.cutoff, options: options))
                } catch {
                    pruned = .failure(error)
                }
                try await connection.query("ROLLBACK", logger: PostgresTestDatabase.logger)
                return try pruned.get()
            }
            #expect(first.partitionsDropped == ["events_2026_02"])
            #expect(first.deferred.count == 1 && first.deferred[0].hasPrefix("events_2026_01"))
            let second = try await store.prune(before: Self.cutoff, options: options)
            #expect(second.partitionsDropped == ["events_2026_01"] && second.deferred.isEmpty)
            #expect(try await store.count() == Self.events.filter { $0.timestamp >= Self.cutoff }.count)
            await store.close()
        }
    }
}

#endif
