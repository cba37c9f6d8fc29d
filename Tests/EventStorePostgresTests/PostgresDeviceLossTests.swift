#if Server

import EventReport
import MeasurementEvents
import PostgresTestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// A device's loss records (``DeviceLoss``) on a PostgreSQL collector count as the SQLite store counts them: in
/// completeness as `device:REASON` when stored as new, once however often they are sent, and in no rollup.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresDeviceLossTests {
    @Test func aLossRecordCountsOnceInCompletenessAndInNoRollup() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let record = DeviceLoss(reason: .bufferFull, count: 12).event(timestamp: 1_774_137_600_000)
            let rejected = DeviceLoss(reason: .tooManyFields, count: 3).event(timestamp: 1_774_137_600_000)
            let navigation = PostgresEventStoreTests.event("n1")
            #expect(
                try await store.writeBatches([[record, navigation], [record]], losses: [.bufferFull: 1]) == [2, 0])
            #expect(try await store.writeBatches([[record, rejected]]) == [1])
            let completeness = try await store.completeness()
            #expect(completeness["dropped"]?["device:buffer_full"] == 12)
            #expect(completeness["dropped"]?["buffer_full"] == 1)
            #expect(completeness["rejected"]?["device:too_many_fields"] == 3)
            let rows = try await store.rows(for: ReportQuery())
            #expect(rows.groups.map(\.count).reduce(0, +) == 1, "only the navigation is an App Links event")
            await store.close()
        }
    }

    /// A rebuild of the rollups leaves out what the writer left out: every well-formed loss record (at the edges of
    /// its reason's length and its count too), and no malformed one, which is an ordinary event there as here.
    @Test func aRebuildLeavesTheLossRecordsOutOfTheRollupsAsTheWriterDid() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let malformed: [[String: String]] = [
                ["reason": "buffer_full", "count": "0"], ["reason": "buffer_full", "count": "12x"],
                ["reason": "buffer_full", "count": "99999999999999999999"],
                ["reason": "buffer_full", "count": "1000000000001"], ["reason": "buffer_full", "count": ""],
                ["reason": "", "count": "3"], ["count": "3"],
                ["reason": String(repeating: "é", count: 65), "count": "3"],
            ]
            let wellFormed: [[String: String]] = [
                ["reason": "buffer_full", "count": "1"], ["reason": "r", "count": "1000000000000"],
                ["reason": String(repeating: "é", count: 64), "count": "0012"],
            ]
            let losses = (malformed + wellFormed).map {
                MeasurementEvent(name: DeviceLoss.eventName, fields: $0, timestamp: 1_774_137_600_000)
            }
            #expect(losses.filter { DeviceLoss($0) != nil }.count == wellFormed.count)
            let navigation = PostgresEventStoreTests.event("n1")
            #expect(try await store.writeBatches([losses + [navigation]]) == [losses.count + 1])
            let written = try await store.rows(for: ReportQuery())
            try await store.rebuildRollups()
            let rebuilt = try await store.rows(for: ReportQuery())
            #expect(Set(written.groups) == Set(rebuilt.groups))
            #expect(written.buckets == rebuilt.buckets)
            let malformedCount = rebuilt.groups.filter { $0.name == DeviceLoss.eventName }.map(\.count).reduce(0, +)
            #expect(malformedCount == malformed.count)
            await store.close()
        }
    }

    /// Each loss counts on the UTC day it happened (Migrations/postgres/0010): the store's own on the day of its
    /// clock, a device's record on the day of the record; the report's window shows the days that begin in it.
    @Test func aLossCountsOnItsDayAndAReportShowsTheLossesOfItsWindow() async throws {
        let day: Int64 = 86_400_000
        let friday: Int64 = 1_763_683_200_000  // 2025-11-21
        try await PostgresTestDatabase.with { url in
            let clock = ManualEventClock(milliseconds: friday + 3_600_000)
            let store = try await PostgresEventStore.open(url: url, options: .init(clock: clock))
            let record = DeviceLoss(reason: .bufferFull, count: 12).event(timestamp: friday - 2 * day + 5)
            #expect(try await store.writeBatches([[record]], losses: [.tooManyFields: 3]) == [1])
            clock.advance(by: day)
            try await store.recordLosses([.tooManyFields: 1])
            func completeness(_ since: Int64?, _ until: Int64?) async throws -> [String: [String: Int]] {
                try await store.rows(for: ReportQuery(since: since, until: until)).completeness
            }
            #expect(try await completeness(friday, friday + day) == ["rejected": ["too_many_fields": 3]])
            #expect(try await completeness(friday - 2 * day, friday) == ["dropped": ["device:buffer_full": 12]])
            #expect(try await completeness(1_577_836_800_000, 1_577_923_200_000).isEmpty)  // 2020-01-01
            #expect(
                try await store.completeness()
                    == ["rejected": ["too_many_fields": 4], "dropped": ["device:buffer_full": 12]])
            await store.close()
        }
    }

    /// The counts kept before 0010 have no day: they move whole to the UTC day the migration runs on.
    @Test func theCountsOfAnOlderDatabaseMoveToTheDayOfTheMigration() async throws {
        try await PostgresTestDatabase.with { url in
            try await PostgresTestDatabase.withConnection(url) { connection in
                try await PostgresMigrator(location: "test").migrate(
                    connection, upTo: 9, logger: PostgresTestDatabase.logger)
                try await connection.query(
                    "INSERT INTO completeness VALUES ('rejected', 'invalid_event', 4, 1000)",
                    logger: PostgresTestDatabase.logger)
            }
            let before = EventTime.utcDayStart(of: SystemEventClock().nowMilliseconds())
            let store = try await PostgresEventStore.open(url: url)
            let after = EventTime.utcDayStart(of: SystemEventClock().nowMilliseconds())
            #expect(try await store.completeness() == ["rejected": ["invalid_event": 4]])
            let days = try await PostgresTestDatabase.column(url, "SELECT day_ms FROM completeness", as: Int64.self)
            #expect(days == [before] || days == [after])
            await store.close()
        }
    }
}

#endif
