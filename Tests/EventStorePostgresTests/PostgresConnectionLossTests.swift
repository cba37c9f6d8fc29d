#if Server

import EventReport
import MeasurementEvents
import PostgresNIO
import PostgresTestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// A batch whose connection is lost in the middle of its transaction stores nothing, fails with a typed error,
/// and a retry stores it whole.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresConnectionLossTests {
    /// Where the batch is made to wait before its connection is terminated.
    enum Hold: CaseIterable, Sendable {
        /// The rollup table locked: the batch has claimed its ids and inserted its events, and waits at its first
        /// rollup upsert.
        case rollups
        /// The batch's last id (in byte order) inserted and not committed by another transaction: the batch waits
        /// in its claim's `COPY`, with the ids before it already sent.
        case claim
    }

    /// A time limit: a write that never returns after its connection was terminated must fail the run, not hang it.
    /// Generous, because a resumed async test can wait behind others for a thread of the concurrency pool.
    @Test(.timeLimit(.minutes(10)), arguments: Hold.allCases)
    func aBatchCutOffByTheServerStoresNothingAndARetryStoresItAll(hold: Hold) async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let events = parityEvents(count: 500, seed: 3)
            try await PostgresTestDatabase.withConnection(url) { blocker in
                let logger = PostgresTestDatabase.logger
                try await blocker.query("BEGIN", logger: logger)
                switch hold {
                case .rollups:
                    try await blocker.query("LOCK TABLE event_rollup IN ACCESS EXCLUSIVE MODE", logger: logger)
                case .claim:
                    let last = events.map(\.id.description).max() ?? ""
                    try await blocker.query("INSERT INTO event_ids (id) VALUES (\(last))", logger: logger)
                }
                async let outcome: Result<[Int], StoreError> = {
                    do throws(StoreError) {
                        return .success(try await store.writeBatches([events], losses: [.bufferFull: 1]))
                    } catch {
                        return .failure(error)
                    }
                }()
                let writer = try await PostgresTestDatabase.waitForLockWait(url)
                try await blocker.query("SELECT pg_terminate_backend(\(writer))", logger: logger)
                try await blocker.query("ROLLBACK", logger: logger)
                guard case .failure(let error) = await outcome else {
                    Issue.record("the batch was written although its connection was terminated")
                    return
                }
                #expect(error.kind == .io)
                #expect(error.message.contains("nothing of it was stored"))
            }
            #expect(try await store.count() == 0)
            #expect(try await store.completeness().isEmpty)
            let claimed = try await PostgresTestDatabase.column(
                url, "SELECT count(*)::bigint FROM event_ids", as: Int64.self
            ).first
            #expect(claimed == 0, "the ids of the lost batch were released with it")
            let stored = try await store.writeBatches([events], losses: [.bufferFull: 1])
            #expect(stored == [Set(events.map(\.id)).count])
            #expect(try await store.count() == Set(events.map(\.id)).count)
            #expect(try await store.completeness() == ["dropped": ["buffer_full": 1]])
            await store.close()
        }
    }
}

#endif
