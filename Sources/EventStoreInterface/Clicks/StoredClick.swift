/// A click token as the store keeps it for the install path (Migrations/0019_create_click_tokens.sql): minted when a
/// person got a hosted link's page (or tapped a store button without one), claimed at most once by the app that the
/// person installed from the store (docs/install.md).
///
/// ```swift
/// let click = StoredClick(token: "3q2-7wAAAAAAAAAAAAAAAA", slug: "invite", mintedMilliseconds: 1_763_683_200_000,
///                         query: "referral=42&ref=mail")
/// ```
public struct StoredClick: Sendable, Hashable {
    /// The token: 16 bytes, base64url without padding (22 characters): the time of its minting in ms (6 bytes), then
    /// 10 random bytes.
    public var token: String
    /// The slug of the link whose page or store button minted it.
    public var slug: String
    /// When it was minted, in ms since the Unix epoch (the click's time: a claim's delay is measured from it).
    public var mintedMilliseconds: Int64
    /// The values the page passed on (`pass_query` and `ref`), percent-encoded as the page's URLs carry them
    /// (`referral=42&ref=mail`, in the link's order), so that a claim can answer the URL the page would have opened.
    public var query: String

    /// Creates a click.
    public init(token: String, slug: String, mintedMilliseconds: Int64, query: String = "") {
        self.token = token
        self.slug = slug
        self.mintedMilliseconds = mintedMilliseconds
        self.query = query
    }
}

/// An app's claim of a click: who claimed it, when, and the id of the `alstats_link_install` event it recorded.
public struct ClickClaim: Sendable, Hashable {
    /// The install id the app made once (random; deleted with the click when the claim window ends).
    public var install: String
    /// The platform the app said it runs on: `ios` or `android`.
    public var platform: String
    /// When the claim was made, in ms since the Unix epoch.
    public var claimedMilliseconds: Int64
    /// The id of the `alstats_link_install` event of the claim: random, kept with the claim so that a retried claim
    /// records the same event again (stored once) and nothing else.
    public var eventID: String

    /// Creates a claim.
    public init(install: String, platform: String, claimedMilliseconds: Int64, eventID: String) {
        self.install = install
        self.platform = platform
        self.claimedMilliseconds = claimedMilliseconds
        self.eventID = eventID
    }
}

/// What ``ClickTokenStore/claimClick(_:by:mintedSince:)`` found.
public enum ClickClaimOutcome: Sendable, Hashable {
    /// The click was claimed now, by this claim: the first and only time.
    case claimed(StoredClick, ClickClaim)
    /// The same install had claimed it before: the claim as it was first recorded (a retried answer).
    case claimedBefore(StoredClick, ClickClaim)
    /// Another install claimed it first.
    case claimedByAnother
    /// The click was minted before the claim window: too old to claim.
    case expired
    /// No such click: never minted here, or deleted once its window ended.
    case unknown
}

extension ClickClaimOutcome {
    /// The outcome of a claim that changed nothing (another install, the same one again, or too late), from what the
    /// store holds for the token: `found`, its first claim `existing`, and this `claim` with its window's start.
    package init(found: StoredClick, existing: ClickClaim?, by claim: ClickClaim, mintedSince: Int64) {
        if found.mintedMilliseconds < mintedSince {
            self = .expired
        } else if let existing {
            self = existing.install == claim.install ? .claimedBefore(found, existing) : .claimedByAnother
        } else {
            // Unclaimed and within the window, yet the claim changed nothing: it was deleted and minted again in
            // between, which a random token never is.
            self = .unknown
        }
    }
}
