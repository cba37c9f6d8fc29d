/// One cause of the alerts from the evaluation that first lists it to the first that no longer does: what
/// `alstats serve` posts to its alert webhook once when it opens (`firing`) and once when it resolves
/// (`resolved`), however often the alerts are evaluated and however many servers share the store.
public struct AlertEpisode: Sendable, Hashable {
    /// The store's id of the episode.
    public var id: Int64
    /// The slice the cause is, `dimension` or `dimension=value`: `all`, `source_host=video.example.org`,
    /// `ref=feed`, `link=invite`. At most one episode of a slice is open at a time.
    public var slice: String
    /// The cause's alert when the episode opened, as the JSON of the report's `alerts` (with what it explains).
    public var alert: String
    /// When the evaluation that opened it ran, ms since the Unix epoch.
    public var openedMilliseconds: Int64
    /// When the evaluation that resolved it ran; `nil` while it is open.
    public var resolvedMilliseconds: Int64?

    /// Creates an episode.
    public init(id: Int64, slice: String, alert: String, openedMilliseconds: Int64, resolvedMilliseconds: Int64?) {
        self.id = id
        self.slice = slice
        self.alert = alert
        self.openedMilliseconds = openedMilliseconds
        self.resolvedMilliseconds = resolvedMilliseconds
    }
}

/// The two notices an episode owes, in this order.
public enum AlertNotice: String, Sendable, Hashable, CaseIterable {
    /// The cause appeared.
    case firing
    /// The cause cleared.
    case resolved
}

/// A notice claimed for sending (``AlertEpisodeStore/claimAlertDelivery(owner:at:leaseUntil:)``): until the claim's
/// lease lapses, no other claim gets it.
public struct AlertDelivery: Sendable, Hashable {
    /// The episode.
    public var episode: AlertEpisode
    /// The notice owed: `firing` until it was sent, then `resolved` once the episode resolved.
    public var notice: AlertNotice
    /// The attempts of this notice that failed before.
    public var failedAttempts: Int

    /// Creates a delivery.
    public init(episode: AlertEpisode, notice: AlertNotice, failedAttempts: Int) {
        self.episode = episode
        self.notice = notice
        self.failedAttempts = failedAttempts
    }
}
