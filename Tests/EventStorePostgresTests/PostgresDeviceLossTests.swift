import EventReport
import EventStore
import MeasurementEvents
import Testing

@testable import EventStorePostgres

/// A device's loss records (``DeviceLoss``) on a PostgreSQL collector count as the SQLite store counts them: in
/// completeness as `device:REASON` when stored as new, once however often they are sent, and in no rollup.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresDeviceLossTests {
    @Test func aLossRecordCountsOnceInCompletenessAndInNoRollup() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore(url: url)
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
}
