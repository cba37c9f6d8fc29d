#if Server

import EventStoreInterface
import EventStorePostgres
import PostgresTestSupport
import TestSupport
import Testing

/// The click tokens of the install path (Migrations/postgres/0010_create_click_tokens.sql) on a real server: the
/// claim's outcomes as on SQLite, and one winner when two collectors (two stores, each with its own pool of
/// connections) claim one token at once.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresClickTokenTests {
    @Test func aTokenIsClaimedOnceAgainOnlyByTheSameInstallAndNotOnceExpiredOrDeleted() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            try await ClickTokenStoreContract.checkClaims(on: store)
            await store.close()
        }
    }

    @Test func twoCollectorsClaimingOneTokenAtOnceHaveExactlyOneWinner() async throws {
        try await PostgresTestDatabase.with { url in
            let first = try await PostgresEventStore.open(url: url)
            let second = try await PostgresEventStore.open(url: url)
            try await ClickTokenStoreContract.checkConcurrentClaims(on: [first, second], claimants: 16)
            await first.close()
            await second.close()
        }
    }
}

#endif
