/// One app target of a hosted link: the values of its group's ``LinkPlatformGroup/keys``.
///
/// ```swift
/// let target = LinkTarget(values: ["url": "couchin://invite", "app_store_id": "123"])
/// target.url   // "couchin://invite"
/// ```
public struct LinkTarget: Sendable, Hashable {
    /// The values by JSON key (`url`, `app_store_id`, `package`, `class`, `app_id`, `app_name`).
    public var values: [String: String]

    /// Creates a target from its values.
    public init(values: [String: String]) {
        self.values = values
    }

    /// The URL that opens the app, when given.
    public var url: String? { values["url"] }
    /// The App Store id (Apple groups).
    public var appStoreId: String? { values["app_store_id"] }
    /// The Android package name.
    public var package: String? { values["package"] }
    /// The app's name, when given.
    public var appName: String? { values["app_name"] }
}
