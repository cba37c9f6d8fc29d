#if Server

import EventStoreInterface
import EventStorePostgres
import PostgresTestSupport
import TestSupport
import Testing

/// The alert episodes on PostgreSQL (Migrations/postgres/0009): what every backend must do, and that two servers on
/// one database, opening and claiming at the same moment, open one episode and claim each notice once.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresAlertEpisodeTests {
    static let start: Int64 = 1_763_683_200_000

    @Test func anEpisodeOpensOnceAndOwesItsFiringThenItsResolvedNoticeOnce() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            #expect(try await AlertEpisodeStoreChecks.anEpisodesLife(store, start: Self.start) == [])
            await store.close()
        }
    }

    @Test func aClaimWhoseLeaseLapsedGoesToAnother() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            #expect(try await AlertEpisodeStoreChecks.aLapsedClaimGoesToAnother(store, start: Self.start) == [])
            await store.close()
        }
    }

    @Test func twoServersOpeningAndClaimingAtOnceGetOneEpisodeAndOneClaim() async throws {
        try await PostgresTestDatabase.with { url in
            let first = try await PostgresEventStore.open(url: url)
            let second = try await PostgresEventStore.open(url: url)
            for round in 0..<5 {
                let slice = "ref=r\(round)"
                let now = Self.start + Int64(round)
                let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<8 {
                        let store = index % 2 == 0 ? first : second
                        group.addTask { try await store.openAlertEpisode(slice: slice, alert: "{}", at: now) }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(opened == 1, "round \(round)")
                let claims = try await withThrowingTaskGroup(of: AlertDelivery?.self) { group in
                    for index in 0..<8 {
                        let store = index % 2 == 0 ? first : second
                        group.addTask {
                            try await store.claimAlertDelivery(owner: "s\(index)", at: now, leaseUntil: now + 60_000)
                        }
                    }
                    return try await group.reduce(into: [AlertDelivery]()) { if let claim = $1 { $0.append(claim) } }
                }
                #expect(claims.count == 1, "round \(round): \(claims)")
                if let claim = claims.first { #expect(claim.episode.slice == slice) }
            }
            await first.close()
            await second.close()
        }
    }
}

#endif
