import Foundation
import MeasurementEvents

/// The way back to the app that opened this one: the banner text and the action behind it.
///
/// Built from an inbound App Link whose `referer_app_link` has string `url` and `app_name` (and whose
/// `url` is a URL). Its AppLink has the referer URL as its one target and no web fallback. Navigating
/// appends `al_applink_data` (`target_url` = the referer URL, `version`, `user_agent`, `extras`) and posts
/// `al_ref_back_out` with `refererAppName` and the inbound link's `ref`.
///
/// ```swift
/// if let back = AppLinkReturnToReferer(inbound: AppLinkURL(parsing: openedURL.absoluteString)) {
///     banner.text = back.text                 // "Touch to return to Facebook"
///     banner.onTap = {
///         back.navigate(canOpen: { UIApplication.shared.canOpenURL($0) },
///                       open: { UIApplication.shared.open($0); return true })
///     }
/// }
/// ```
public struct AppLinkReturnToReferer: Sendable {
    /// The app to return to.
    public let referer: AppLinkReferer
    /// The `ref` of the inbound link being returned from.
    public let ref: String?
    /// The back link: the referer URL as its one target, no web URL.
    public let appLink: AppLink

    /// The back link of an inbound App Link, or `nil` when it has no usable referer.
    public init?(inbound: AppLinkURL) {
        guard let referer = inbound.appLinkReferer, RawURL(referer.url).isAbsolute,
            let url = URL(string: referer.url)
        else { return nil }
        self.referer = referer
        ref = inbound.ref
        appLink = AppLink(sourceURL: url, targets: [AppLinkTarget(url: url, appName: referer.appName)], webURL: nil)
    }

    /// The banner text: "Touch to return to <app_name>".
    public var text: String { "Touch to return to \(referer.appName)" }

    /// The navigation behind the banner (its event is `al_ref_back_out`).
    public var navigation: AppLinkNavigation {
        var navigation = AppLinkNavigation(appLink: appLink)
        navigation.backTo = (referer.appName, ref)
        return navigation
    }

    /// The dry run: the URL that would be opened and the event, without opening or posting.
    public func plan(canOpen: (URL) -> Bool) -> AppLinkNavigationResult {
        navigation.plan(canOpen: canOpen)
    }

    /// Returns to the referer: opens its URL with `al_applink_data` and posts `al_ref_back_out`.
    /// - Parameters:
    ///   - canOpen: whether the referring app is installed.
    ///   - open: opens a URL; returns whether it worked.
    ///   - bus: where to post; by default ``MeasurementEventBus/shared``.
    @discardableResult
    public func navigate(
        canOpen: (URL) -> Bool, open: (URL) -> Bool, on bus: MeasurementEventBus = .shared
    ) -> AppLinkNavigationResult {
        navigation.navigate(canOpen: canOpen, open: open, on: bus)
    }
}
