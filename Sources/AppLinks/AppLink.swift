import Foundation

/// What a page says about opening its content in apps: the targets for one platform, in order, and the
/// web URL to fall back to.
///
/// ```swift
/// let link = AppLinkMetadata(html: page).appLink(sourceURL: pageURL, platform: .iphone)
/// link.targets.first?.url   // example-ios://article/1
/// link.webURL               // the page itself unless al:web says otherwise
/// ```
public struct AppLink: Sendable, Hashable {
    /// The URL of the page whose metadata this is (`sourceURL` of `al_nav_out`, `target_url` of the data).
    public var sourceURL: URL
    /// The targets in the order navigation tries them.
    public var targets: [AppLinkTarget]
    /// Where to go when no target can be opened; `nil` when `al:web:should_fallback` forbids it.
    public var webURL: URL?

    /// Creates an AppLink.
    public init(sourceURL: URL, targets: [AppLinkTarget], webURL: URL?) {
        self.sourceURL = sourceURL
        self.targets = targets
        self.webURL = webURL
    }
}
