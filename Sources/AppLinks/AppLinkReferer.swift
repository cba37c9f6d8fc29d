import MeasurementEvents

/// The app that sent the user here, from `al_applink_data.referer_app_link`: where "back" goes.
///
/// It exists only when both `url` and `app_name` are strings; any other type is ignored.
///
/// ```swift
/// if let referer = AppLinkURL(parsing: openedURL).appLinkReferer {
///     print(referer.appName, referer.url)   // "Facebook", "fb://back"
/// }
/// ```
public struct AppLinkReferer: Sendable, Hashable {
    /// The URL that opens the referring app (the back link), as written.
    public var url: String
    /// The referring app's display name.
    public var appName: String

    /// Creates a referer description.
    public init(url: String, appName: String) {
        self.url = url
        self.appName = appName
    }

    /// Reads `{"url": "...", "app_name": "..."}`; `nil` unless both are strings.
    init?(json: JSONValue?) {
        guard let url = json?["url"]?.stringValue, let appName = json?["app_name"]?.stringValue else { return nil }
        self.init(url: url, appName: appName)
    }

    /// The JSON written into outbound `al_applink_data.referer_app_link`.
    var json: JSONValue {
        .object(["app_name": .string(appName), "url": .string(url)])
    }
}
