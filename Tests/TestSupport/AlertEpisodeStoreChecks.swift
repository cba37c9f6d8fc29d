import EventStoreInterface

/// What every ``AlertEpisodeStore`` must do, checked the same way on each backend: episodes open and resolve once,
/// notices come in order, a claim excludes every other until it ends or its lease lapses, failures wait for their
/// retry time. Each check returns the problems it found (empty: none), for the backend's test to expect empty.
public enum AlertEpisodeStoreChecks {
    static let slice = "source_host=video.example.org"
    static let alert = #"{"dimension":"source_host","value":"video.example.org"}"#

    /// The whole life of one episode on `store` (empty), from `start`: open, claim, fail, retry, send, resolve, send.
    public static func anEpisodesLife(_ store: any AlertEpisodeStore, start: Int64) async throws -> [String] {
        var problems: [String] = []
        func check(_ condition: Bool, _ problem: String) { if !condition { problems.append(problem) } }

        check(try await store.nextAlertDeliveryTime() == nil, "an empty store owes a notice")
        check(try await store.openAlertEpisode(slice: slice, alert: alert, at: start), "the first open did nothing")
        check(!(try await store.openAlertEpisode(slice: slice, alert: "{}", at: start + 1)), "a slice opened twice")
        let open = try await store.openAlertEpisodes()
        check(open.count == 1 && open.first?.alert == alert && open.first?.openedMilliseconds == start, "\(open)")

        // A claim holds the notice until its lease ends: nobody else gets it, and it is due again then.
        guard let first = try await store.claimAlertDelivery(owner: "a", at: start, leaseUntil: start + 60_000) else {
            return problems + ["the firing notice of a new episode could not be claimed"]
        }
        check(first.notice == .firing && first.failedAttempts == 0 && first.episode.slice == slice, "\(first)")
        check(
            try await store.claimAlertDelivery(owner: "b", at: start + 1, leaseUntil: start + 9) == nil, "claimed twice"
        )
        check(try await store.nextAlertDeliveryTime() == start + 60_000, "not due when the claim ends")

        // A failed attempt waits for its retry time, then counts.
        try await store.failAlertDelivery(first, owner: "a", retryAt: start + 10_000)
        check(try await store.claimAlertDelivery(owner: "b", at: start + 9_999, leaseUntil: start + 1) == nil, "early")
        check(try await store.nextAlertDeliveryTime() == start + 10_000, "not due at its retry time")
        guard let retry = try await store.claimAlertDelivery(owner: "b", at: start + 10_000, leaseUntil: start + 70_000)
        else { return problems + ["the failed notice was not due again at its retry time"] }
        check(retry.notice == .firing && retry.failedAttempts == 1, "\(retry)")

        // Sent: nothing is owed until the episode resolves; then the resolved notice, afresh.
        try await store.finishAlertDelivery(retry, owner: "b", at: start + 10_001)
        check(try await store.nextAlertDeliveryTime() == nil, "a sent firing notice is still owed")
        check(
            try await store.claimAlertDelivery(owner: "a", at: start + 20_000, leaseUntil: start + 80_000) == nil,
            "sent")
        let id = retry.episode.id
        check(try await store.resolveAlertEpisode(id: id, at: start + 30_000), "the open episode did not resolve")
        check(!(try await store.resolveAlertEpisode(id: id, at: start + 30_001)), "an episode resolved twice")
        check(try await store.openAlertEpisodes().isEmpty, "a resolved episode is still open")
        let resolved = try await store.claimAlertDelivery(owner: "a", at: start + 30_000, leaseUntil: start + 90_000)
        check(resolved?.notice == .resolved && resolved?.failedAttempts == 0, "\(String(describing: resolved))")
        check(resolved?.episode.resolvedMilliseconds == start + 30_000, "\(String(describing: resolved))")
        if let resolved { try await store.finishAlertDelivery(resolved, owner: "a", at: start + 30_002) }
        check(try await store.nextAlertDeliveryTime() == nil, "a sent resolved notice is still owed")

        // The slice may break again: a new episode.
        check(try await store.openAlertEpisode(slice: slice, alert: alert, at: start + 40_000), "no second episode")
        return problems
    }

    /// A claim whose lease lapsed goes to the next claimer, and the first owner's late answer changes nothing.
    public static func aLapsedClaimGoesToAnother(_ store: any AlertEpisodeStore, start: Int64) async throws -> [String]
    {
        var problems: [String] = []
        func check(_ condition: Bool, _ problem: String) { if !condition { problems.append(problem) } }
        try await store.openAlertEpisode(slice: "ref=feed", alert: "{}", at: start)
        guard let dead = try await store.claimAlertDelivery(owner: "dead", at: start, leaseUntil: start + 5_000),
            let alive = try await store.claimAlertDelivery(owner: "alive", at: start + 5_000, leaseUntil: start + 9_000)
        else { return ["a lapsed claim could not be taken over"] }
        check(dead.episode.id == alive.episode.id && alive.notice == .firing, "\(dead) \(alive)")
        try await store.failAlertDelivery(dead, owner: "dead", retryAt: start + 1_000_000)
        try await store.finishAlertDelivery(dead, owner: "dead", at: start + 5_001)
        check(try await store.nextAlertDeliveryTime() == start + 9_000, "the lapsed owner changed the new claim")
        try await store.finishAlertDelivery(alive, owner: "alive", at: start + 5_002)
        check(try await store.nextAlertDeliveryTime() == nil, "the new owner's send was not recorded")
        return problems
    }
}
