import Foundation

/// One app that can show an App Link's content: its URL and how to get the app.
///
/// ```swift
/// let target = AppLinkTarget(url: URL(string: "example-ios://article/1"), appStoreId: "12345", appName: "Example")
/// ```
public struct AppLinkTarget: Sendable, Hashable {
    /// The URL that opens the content in the app; `nil` when the tags gave none (navigation skips it).
    public var url: URL?
    /// The App Store id of an iOS app (`al:ios:app_store_id`).
    public var appStoreId: String?
    /// The package name of an Android app (`al:android:package`).
    public var package: String?
    /// The activity class of an Android app (`al:android:class`).
    public var className: String?
    /// The app's display name.
    public var appName: String?

    /// Creates a target.
    public init(
        url: URL?, appStoreId: String? = nil, package: String? = nil, className: String? = nil, appName: String? = nil
    ) {
        self.url = url
        self.appStoreId = appStoreId
        self.package = package
        self.className = className
        self.appName = appName
    }
}
