/// The device kind an AppLink is resolved for; it decides which meta-tag groups give targets.
///
/// ```swift
/// AppLinkPlatform.iphone.groups   // ["iphone", "ios"]
/// ```
public enum AppLinkPlatform: String, Sendable, Hashable, CaseIterable {
    /// An iPhone: `al:iphone` groups, then `al:ios` groups.
    case iphone
    /// An iPad: `al:ipad` groups, then `al:ios` groups.
    case ipad
    /// An Android device: `al:android` groups.
    case android

    /// The meta-tag platform names whose groups give targets, in order.
    public var groups: [String] {
        switch self {
        case .iphone: ["iphone", "ios"]
        case .ipad: ["ipad", "ios"]
        case .android: ["android"]
        }
    }
}
