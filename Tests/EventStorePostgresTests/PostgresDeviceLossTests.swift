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
}

#endif
