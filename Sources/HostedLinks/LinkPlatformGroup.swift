/// A platform group of a hosted link: a list of targets in preference order, written as `al:<group>:*` tags.
///
/// ```swift
/// LinkPlatformGroup.android.keys   // ["package", "url", "class", "app_name"]
/// ```
public enum LinkPlatformGroup: String, Sendable, Hashable, CaseIterable {
    /// Any iOS device.
    case ios
    /// An iPhone.
    case iphone
    /// An iPad.
    case ipad
    /// An Android device.
    case android
    /// A Windows Phone.
    case windowsPhone = "windows_phone"
    /// Windows.
    case windows
    /// A Universal Windows app.
    case windowsUniversal = "windows_universal"

    /// The keys a target of this group may have, its required key first (the tag order of applinks.org).
    public var keys: [String] {
        switch self {
        case .ios, .iphone, .ipad: ["url", "app_store_id", "app_name"]
        case .android: ["package", "url", "class", "app_name"]
        case .windowsPhone, .windows, .windowsUniversal: ["url", "app_id", "app_name"]
        }
    }

    /// The key every target of this group must have.
    public var requiredKey: String { keys[0] }
}
