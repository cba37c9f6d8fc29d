import EventStoreInterface
import Testing

/// What every ``ClickTokenStore`` does, checked the same way on the SQLite store (EventStoreSQLiteTests) and the
/// PostgreSQL store (EventStorePostgresTests).
public enum ClickTokenStoreContract {
    /// 2025-11-21T00:00:00Z: the clicks' time.
    public static let minted: Int64 = 1_763_683_200_000
    /// A claim window of 7 days.
    public static let window: Int64 = 7 * 86_400_000

    /// A claim by `install` at `minted + delay`.
    public static func claim(_ install: String, after delay: Int64 = 60_000, event: String = "e") -> ClickClaim {
        ClickClaim(install: install, platform: "android", claimedMilliseconds: minted + delay, eventID: event)
    }

    /// A token is claimed once; the same install claiming again gets the first claim back, another install is
    /// refused, an unknown or expired token is said to be so, and deleting ends everything.
    public static func checkClaims(on store: any ClickTokenStore) async throws {
        let click = StoredClick(
            token: "AAAAAAAAAAAAAAAAAAAAAA", slug: "invite", mintedMilliseconds: minted, query: "referral=42&ref=mail")
        let old = StoredClick(token: "BBBBBBBBBBBBBBBBBBBBBA", slug: "invite", mintedMilliseconds: minted - window - 1)
        try await store.recordClicks([click, old])
        try await store.recordClicks([StoredClick(token: click.token, slug: "other", mintedMilliseconds: 0)])
        #expect(try await store.click(token: click.token) == click, "a token stored again is kept as it was")
        #expect(try await store.click(token: "CCCCCCCCCCCCCCCCCCCCCA") == nil)

        let since = minted + 3_600_000 - window
        let first = claim("install-a", event: "first")
        #expect(try await store.claimClick(click.token, by: first, mintedSince: since) == .claimed(click, first))
        let retry = claim("install-a", after: 120_000, event: "second")
        #expect(
            try await store.claimClick(click.token, by: retry, mintedSince: since) == .claimedBefore(click, first),
            "a retried claim gets the first claim's time and event back")
        #expect(
            try await store.claimClick(click.token, by: claim("install-b"), mintedSince: since) == .claimedByAnother)
        #expect(try await store.claimClick("CCCCCCCCCCCCCCCCCCCCCA", by: first, mintedSince: since) == .unknown)
        #expect(try await store.claimClick(old.token, by: first, mintedSince: since) == .expired)
        #expect(
            try await store.claimClick(click.token, by: first, mintedSince: minted + 1) == .expired,
            "a retry after the window is too late too")

        #expect(try await store.deleteClicks(mintedBefore: since) == 1)
        #expect(try await store.click(token: old.token) == nil)
        #expect(try await store.deleteClicks(mintedBefore: minted + window) == 1)
        #expect(try await store.claimClick(click.token, by: first, mintedSince: since) == .unknown)
    }

    /// `claimants` claims of one token at once, each by another install, through `stores` in turn (several
    /// connections or processes): exactly one wins, and every other is told another install has it.
    public static func checkConcurrentClaims(on stores: [any ClickTokenStore], claimants: Int = 12) async throws {
        let token = "DDDDDDDDDDDDDDDDDDDDDA"
        try await stores[0].recordClicks([StoredClick(token: token, slug: "invite", mintedMilliseconds: minted)])
        let outcomes = try await withThrowingTaskGroup(of: ClickClaimOutcome.self) { group in
            for index in 0..<claimants {
                let store = stores[index % stores.count]
                group.addTask {
                    try await store.claimClick(
                        token, by: claim("install-\(index)", event: "event-\(index)"), mintedSince: minted)
                }
            }
            var outcomes: [ClickClaimOutcome] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let winners = outcomes.filter { if case .claimed = $0 { true } else { false } }
        #expect(winners.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .claimedByAnother }.count == claimants - 1, "\(outcomes)")
        guard case .claimed(_, let winner) = winners.first else { return }
        #expect(
            try await stores.last!.claimClick(token, by: winner, mintedSince: minted)
                == .claimedBefore(
                    StoredClick(token: token, slug: "invite", mintedMilliseconds: minted), winner))
    }
}
