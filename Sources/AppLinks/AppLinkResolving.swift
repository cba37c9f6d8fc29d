import Foundation
import MeasurementEvents

/// Turns a page URL into its AppLink (targets for one platform, web URL).
///
/// Implementations: ``HTTPAppLinkResolver`` fetches the page, ``HTMLAppLinkResolver`` reads a page already
/// in memory, ``CachingAppLinkResolver`` wraps any resolver with a time to live. A host may write its own
/// (for example one that asks an index server).
///
/// ```swift
/// let resolver = CachingAppLinkResolver(wrapping: HTTPAppLinkResolver(platform: .iphone))
/// let link = try await resolver.appLink(for: URL(string: "https://example.com/article")!)
/// ```
public protocol AppLinkResolving: Sendable {
    /// The AppLink of the page at `url`.
    /// - Throws: ``AppLinkError`` when the page cannot be had (network, status, size, time).
    func appLink(for url: URL) async throws(AppLinkError) -> AppLink
}

/// A resolver that fetches the page at the URL itself (over HTTP: `HTTPAppLinkResolver`,
/// `AsyncHTTPClientAppLinkResolver`): its AppLink is the metadata of the body ``fetch(_:)`` returns, with the URL
/// asked for as its source.
public protocol AppLinkPageFetching: AppLinkResolving {
    /// The platform targets are chosen for.
    var platform: AppLinkPlatform { get }

    /// The page body of `url`, within the resolver's limits.
    /// - Throws: ``AppLinkError`` when the page cannot be had (scheme, network, status, size, time).
    func fetch(_ url: URL) async throws(AppLinkError) -> [UInt8]
}

extension AppLinkPageFetching {
    /// Fetches `url` and returns its AppLink.
    /// - Throws: ``AppLinkError/unsupportedScheme(_:)``, ``AppLinkError/httpStatus(_:)``,
    ///   ``AppLinkError/tooManyRedirects(limit:)``, ``AppLinkError/timedOut(seconds:)``,
    ///   ``AppLinkError/tooLarge(limit:)`` or ``AppLinkError/network(_:)``.
    public func appLink(for url: URL) async throws(AppLinkError) -> AppLink {
        let body = try await fetch(url)
        return AppLinkMetadata(html: body).appLink(sourceURL: url, platform: platform)
    }
}

extension AppLinkError {
    /// Refuses a URL a page fetch must not follow: any scheme but `http` and `https` (a redirect must not turn a
    /// page fetch into a `file://` read).
    package static func requireWebScheme(_ url: URL) throws(AppLinkError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupportedScheme(url.scheme ?? "")
        }
    }
}

/// A resolver for a page whose HTML is already at hand (a file, a test fixture): every URL resolves to
/// the metadata of that one page, with the URL as source.
///
/// ```swift
/// let resolver = HTMLAppLinkResolver(html: try String(contentsOfFile: "article.html"), platform: .android)
/// ```
public struct HTMLAppLinkResolver: AppLinkResolving {
    /// The grouped meta tags of the page.
    public let metadata: AppLinkMetadata
    /// The platform targets are chosen for.
    public let platform: AppLinkPlatform

    /// Creates a resolver for one page.
    public init(html: String, platform: AppLinkPlatform = .iphone) {
        metadata = AppLinkMetadata(html: html)
        self.platform = platform
    }

    /// The page's AppLink with `url` as its source URL; never throws.
    public func appLink(for url: URL) async throws(AppLinkError) -> AppLink {
        metadata.appLink(sourceURL: url, platform: platform)
    }
}

extension AppLinkNavigation {
    /// Resolves `pageURL`, then navigates as ``navigate(canOpen:open:on:)`` does. A resolution failure is a
    /// failed navigation: it posts `al_nav_out` with success "0", type "fail" and the error's
    /// ``AppLinkError/code`` (the reference implementations posted nothing, overstating success rates).
    ///
    /// ```swift
    /// let result = await AppLinkNavigation.navigate(
    ///     to: pageURL, resolver: HTTPAppLinkResolver(platform: .iphone),
    ///     canOpen: { UIApplication.shared.canOpenURL($0) }, open: { UIApplication.shared.open($0); return true })
    /// ```
    /// - Parameters:
    ///   - pageURL: the page with App Link meta tags.
    ///   - resolver: how to get its AppLink.
    ///   - extras, appLinkData, referer: as in ``init(appLink:extras:appLinkData:referer:userAgent:)``.
    ///   - canOpen, open, bus: as in ``navigate(canOpen:open:on:)``.
    @discardableResult
    public static func navigate(
        to pageURL: URL, resolver: some AppLinkResolving, extras: JSONValue = .object(JSONObject()),
        appLinkData: JSONObject = JSONObject(), referer: AppLinkReferer? = nil,
        canOpen: (URL) -> Bool, open: (URL) -> Bool, on bus: MeasurementEventBus = .shared
    ) async -> AppLinkNavigationResult {
        do {
            let link = try await resolver.appLink(for: pageURL)
            let navigation = AppLinkNavigation(
                appLink: link, extras: extras, appLinkData: appLinkData, referer: referer)
            return navigation.navigate(canOpen: canOpen, open: open, on: bus)
        } catch {
            let result = resolutionFailure(pageURL: pageURL, error: error, appLinkData: appLinkData)
            bus.post(result.event.name, fields: result.event.fields)
            return result
        }
    }

    /// The failed navigation (not posted) that stands for a page that could not be resolved.
    public static func resolutionFailure(
        pageURL: URL, error: AppLinkError, appLinkData: JSONObject = JSONObject()
    ) -> AppLinkNavigationResult {
        let navigation = AppLinkNavigation(
            appLink: AppLink(sourceURL: pageURL, targets: [], webURL: nil), appLinkData: appLinkData)
        return navigation.failure(error.code)
    }

    /// A `canOpen` function for a device where apps with these URL schemes are installed
    /// (compared case-insensitively).
    ///
    /// ```swift
    /// navigation.plan(canOpen: AppLinkNavigation.installed(schemes: ["example-ios"]))
    /// ```
    public static func installed(schemes: some Sequence<String>) -> @Sendable (URL) -> Bool {
        let installed = Set(schemes.map { $0.lowercased() })
        return { url in url.scheme.map { installed.contains($0.lowercased()) } ?? false }
    }
}
