import Foundation

/// The `al:` meta tags of a page, grouped by platform as the App Links protocol lays them out.
///
/// A tag whose property ends in a platform name (`al:ios`, `al:iphone`, `al:ipad`, `al:android`,
/// `al:web`) starts a new group; `al:<platform>:<key>` tags belong to that platform's latest group
/// (one is started when there is none). Inside a group, repeated keys pair up by position: the second
/// `al:ios:url` goes with the second `al:ios:app_store_id`. Unequal counts are safe: a missing value is
/// absent.
///
/// ```swift
/// let metadata = AppLinkMetadata(html: """
///     <meta property="al:ios:url" content="example-ios://article/1">
///     <meta property="al:ios:app_name" content="Example">
///     <meta property="al:web:should_fallback" content="false">
///     """)
/// let link = metadata.appLink(sourceURL: URL(string: "https://example.com/article")!, platform: .iphone)
/// link.targets.count   // 1
/// link.webURL          // nil
/// ```
public struct AppLinkMetadata: Sendable, Hashable {
    /// One group: key (`url`, `app_store_id`, ...) to its values in order, `nil` for a tag without content.
    public typealias Group = [String: [String?]]

    /// The groups per platform name, each list in document order.
    public private(set) var groups: [String: [Group]] = [:]

    static let platforms: Set<String> = ["ios", "iphone", "ipad", "android", "web"]

    /// Groups the `al:` tags among `tags` (others are ignored).
    public init(tags: [MetaTag]) {
        for tag in tags {
            let components = tag.property.lowercased().split(separator: ":", omittingEmptySubsequences: false)
            guard components.count >= 2, components[0] == "al" else { continue }
            let platform = String(components[1])
            guard AppLinkMetadata.platforms.contains(platform) else { continue }
            if components.count == 2 {
                groups[platform, default: []].append([:])
                continue
            }
            let key = components[2...].joined(separator: ":")
            if groups[platform, default: []].isEmpty { groups[platform, default: []].append([:]) }
            let last = groups[platform, default: []].count - 1
            groups[platform, default: []][last][key, default: []].append(tag.content)
        }
    }

    /// Reads and groups the `al:` meta tags of an HTML page.
    public init(html: String) {
        self.init(tags: MetaTagParser.metaTags(in: html))
    }

    /// Reads and groups the `al:` meta tags of an HTML page given as bytes.
    public init(html: [UInt8]) {
        self.init(tags: MetaTagParser.metaTags(in: html))
    }

    /// The targets for `platform`, in order: the groups of ``AppLinkPlatform/groups`` in turn, and inside a
    /// group by position. A position where every value is missing gives no target.
    public func targets(for platform: AppLinkPlatform) -> [AppLinkTarget] {
        var targets: [AppLinkTarget] = []
        for name in platform.groups {
            for group in groups[name] ?? [] {
                let keys =
                    platform == .android
                    ? ["url", "package", "class", "app_name"] : ["url", "app_store_id", "app_name"]
                let count = keys.map { group[$0]?.count ?? 0 }.max() ?? 0
                for position in 0..<count {
                    func value(_ key: String) -> String? {
                        guard let values = group[key], position < values.count else { return nil }
                        return values[position]
                    }
                    let target = AppLinkTarget(
                        url: value("url").flatMap(AppLinkMetadata.url(from:)),
                        appStoreId: platform == .android ? nil : value("app_store_id"),
                        package: platform == .android ? value("package") : nil,
                        className: platform == .android ? value("class") : nil,
                        appName: value("app_name"))
                    if target != AppLinkTarget(url: nil) { targets.append(target) }
                }
            }
        }
        return targets
    }

    /// The web URL: the first `al:web:url` with content that is a URL, else `sourceURL`; `nil` when the
    /// first `al:web:should_fallback` with content is "no", "false" or "0" (any case).
    public func webURL(sourceURL: URL) -> URL? {
        let web = groups["web"] ?? []
        let fallback = web.lazy.compactMap { $0["should_fallback"] }.joined().compactMap { $0 }.first
        if let fallback, ["no", "false", "0"].contains(fallback.trimmingCharacters(in: .whitespaces).lowercased()) {
            return nil
        }
        let url = web.lazy.compactMap { $0["url"] }.joined().compactMap { $0.flatMap(AppLinkMetadata.url(from:)) }.first
        return url ?? sourceURL
    }

    /// The AppLink for a page at `sourceURL` seen from `platform`.
    public func appLink(sourceURL: URL, platform: AppLinkPlatform) -> AppLink {
        AppLink(sourceURL: sourceURL, targets: targets(for: platform), webURL: webURL(sourceURL: sourceURL))
    }

    /// A URL from tag content: trimmed, non-empty, absolute, and accepted by Foundation.
    static func url(from content: String) -> URL? {
        let trimmed = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard RawURL(trimmed).isAbsolute else { return nil }
        return URL(string: trimmed)
    }
}
