/// Where the click tokens of the install path live, whatever the database (docs/install.md): the SQLite store and
/// the PostgreSQL store each implement it on a table of their own (`click_tokens`). A token is minted by a page view
/// or a store button, claimed at most once by an installed app, and deleted once its claim window has ended.
///
/// Every method has the semantics of the SQLite store's method of the same name; both backends give the same
/// answers for the same calls, and several processes sharing one PostgreSQL database claim each token once.
///
/// ```swift
/// let clicks: any ClickTokenStore = try SQLiteEventStore(path: "alstats.sqlite")
/// try await clicks.recordClicks([StoredClick(token: token, slug: "invite", mintedMilliseconds: now)])
/// let claim = ClickClaim(install: installID, platform: "android", claimedMilliseconds: now, eventID: eventID)
/// switch try await clicks.claimClick(token, by: claim, mintedSince: now - 7 * 86_400_000) { ... }
/// ```
public protocol ClickTokenStore: AnyObject, Sendable {
    /// Stores minted clicks, in one transaction; a token already stored is kept as it is.
    /// - Throws: ``StoreError``; then none of `clicks` is stored.
    func recordClicks(_ clicks: [StoredClick]) async throws(StoreError)

    /// The click minted with `token`, if it is stored (claimed or not).
    /// - Throws: ``StoreError`` when the database cannot be read.
    func click(token: String) async throws(StoreError) -> StoredClick?

    /// Claims the click of `token` for `claim`'s install, atomically: of several claims of one token at once, from
    /// any number of processes on the same database, exactly one finds it unclaimed and records itself.
    /// - Parameters:
    ///   - claim: the install, its platform, the time, and the id of the install event to record.
    ///   - mintedSince: the start of the claim window (ms since the Unix epoch): a click minted before it is
    ///     ``ClickClaimOutcome/expired``.
    /// - Returns: ``ClickClaimOutcome/claimed(_:_:)`` for the one claim that won;
    ///   ``ClickClaimOutcome/claimedBefore(_:_:)`` with the first claim when the same install claims again within
    ///   the window; ``ClickClaimOutcome/claimedByAnother``, ``ClickClaimOutcome/expired`` or
    ///   ``ClickClaimOutcome/unknown`` otherwise.
    /// - Throws: ``StoreError``; then nothing was claimed.
    func claimClick(_ token: String, by claim: ClickClaim, mintedSince: Int64) async throws(StoreError)
        -> ClickClaimOutcome

    /// Deletes the clicks minted before `cutoff` (ms since the Unix epoch), claimed or not, with their install ids:
    /// after its window nothing is left of a click but the events that name it.
    /// - Returns: how many were deleted.
    /// - Throws: ``StoreError``; then none was deleted.
    @discardableResult
    func deleteClicks(mintedBefore cutoff: Int64) async throws(StoreError) -> Int
}
