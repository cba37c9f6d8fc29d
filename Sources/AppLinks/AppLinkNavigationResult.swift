import Foundation
import MeasurementEvents

/// What a navigation attempt did (or, for a dry run, would do): the kind of destination, the URL, and
/// the event that reports it.
///
/// ```swift
/// let result = navigation.plan { url in installedSchemes.contains(url.scheme ?? "") }
/// result.type        // .app
/// result.url         // example-ios://article/1?al_applink_data=%7B...
/// result.event.name  // "al_nav_out"
/// ```
public struct AppLinkNavigationResult: Sendable, Hashable {
    /// `app`, `web` or `fail`.
    public var type: NavigationType
    /// The URL opened (or that a dry run would open), with its `al_applink_data`; `nil` when nothing is opened.
    public var url: URL?
    /// The target chosen, for type `app`.
    public var target: AppLinkTarget?
    /// Why the attempt failed (the `error` field), `nil` on success.
    public var error: String?
    /// The event posted after the attempt (`al_nav_out` or `al_ref_back_out`), or that a dry run would post.
    public var event: AppLinkEvent

    /// Whether an app or the web fallback was opened (`success` "1").
    public var succeeded: Bool { type != .fail }

    /// Creates a result.
    public init(type: NavigationType, url: URL?, target: AppLinkTarget?, error: String?, event: AppLinkEvent) {
        self.type = type
        self.url = url
        self.target = target
        self.error = error
        self.event = event
    }
}
