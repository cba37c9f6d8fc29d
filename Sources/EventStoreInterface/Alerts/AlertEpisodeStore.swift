/// Where the alert episodes of `alstats serve` live (docs/dashboard.md, "Alerts that reach someone"): in the
/// store, so that a restart neither repeats nor forgets a notice, and so that the servers sharing one PostgreSQL
/// database send each notice once. Both backends implement it (table `alert_episodes`).
///
/// Every change is one atomic statement: opening an episode does nothing when one of the slice is open, resolving
/// one does nothing when it is resolved already, and a claim takes a notice only when nobody holds it, so that two
/// servers that evaluate at the same time agree on one episode and one sender.
///
/// ```swift
/// let store: any AlertEpisodeStore = opened.alertEpisodes
/// try await store.openAlertEpisode(slice: "source_host=video.example.org", alert: json, at: now)
/// if let delivery = try await store.claimAlertDelivery(owner: me, at: now, leaseUntil: now + 60_000) {
///     // post it, then:
///     try await store.finishAlertDelivery(delivery, owner: me, at: now)
/// }
/// ```
public protocol AlertEpisodeStore: Sendable {
    /// The episodes not resolved, by id.
    /// - Throws: ``StoreError`` when the store cannot be read.
    func openAlertEpisodes() async throws(StoreError) -> [AlertEpisode]

    /// Opens an episode of `slice` with the cause's `alert` JSON, unless one of that slice is open.
    /// - Returns: whether this call opened it.
    /// - Throws: ``StoreError`` when the store cannot be written.
    @discardableResult
    func openAlertEpisode(slice: String, alert: String, at milliseconds: Int64) async throws(StoreError) -> Bool

    /// Resolves the episode `id` at `milliseconds`, unless it is resolved already.
    /// - Returns: whether this call resolved it.
    /// - Throws: ``StoreError`` when the store cannot be written.
    @discardableResult
    func resolveAlertEpisode(id: Int64, at milliseconds: Int64) async throws(StoreError) -> Bool

    /// Claims for `owner` the notice that is due soonest at `now`: an episode whose firing notice was not sent, or
    /// that resolved and whose resolved notice was not sent, whose retry time has come and that nobody's claim
    /// holds (a claim whose lease ended lapses). The claim holds until `leaseUntil`.
    /// - Returns: the claimed notice, or `nil` when none is due.
    /// - Throws: ``StoreError`` when the store cannot be written.
    func claimAlertDelivery(owner: String, at now: Int64, leaseUntil: Int64) async throws(StoreError) -> AlertDelivery?

    /// Records the claimed notice as sent at `milliseconds` and ends the claim; the episode's next notice (if any)
    /// starts with no failed attempts. Nothing changes when `owner`'s claim lapsed and another took it.
    /// - Throws: ``StoreError`` when the store cannot be written.
    func finishAlertDelivery(_ delivery: AlertDelivery, owner: String, at milliseconds: Int64) async throws(StoreError)

    /// Records a failed attempt of the claimed notice and ends the claim: the notice is due again at `retryAt`.
    /// Nothing changes when `owner`'s claim lapsed and another took it.
    /// - Throws: ``StoreError`` when the store cannot be written.
    func failAlertDelivery(_ delivery: AlertDelivery, owner: String, retryAt: Int64) async throws(StoreError)

    /// When the next notice owed can be claimed (its retry time, or the end of the claim that holds it), ms since the
    /// Unix epoch; `nil` when no notice is owed.
    /// - Throws: ``StoreError`` when the store cannot be read.
    func nextAlertDeliveryTime() async throws(StoreError) -> Int64?
}
