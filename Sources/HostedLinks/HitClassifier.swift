import Foundation

/// The device platform of a hit, from its User-Agent.
public enum HitPlatform: String, Sendable, Hashable, CaseIterable {
    /// iPhone, iPad or iPod.
    case ios
    /// Android.
    case android
    /// Windows Phone.
    case windowsPhone = "windows_phone"
    /// Anything else.
    case web
}

/// Reads a hit's platform, crawler flag and referrer host from its request headers (docs/events.md,
/// `alstats_link_hit`).
///
/// ```swift
/// HitClassifier.platform(userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)")   // .ios
/// HitClassifier.isCrawler(userAgent: "Slackbot-LinkExpanding 1.0", method: "GET")              // true
/// ```
public enum HitClassifier {
    /// Substrings (compared case-insensitively) of the User-Agents of link previewers and crawlers, and of a
    /// browser that only renders the page for a screenshot or a preview (headless Chromium says
    /// `HeadlessChrome`, as do the preview services and scripts built on it).
    public static let crawlerMarkers = [
        "facebookexternalhit", "facebookcatalog", "meta-externalagent", "twitterbot", "slackbot", "whatsapp",
        "telegrambot", "discordbot", "linkedinbot", "googlebot", "bingbot", "headlesschrome",
    ]

    /// ``crawlerMarkers`` as bytes, for the search on every hit.
    static let crawlerMarkerBytes = crawlerMarkers.map { Array($0.utf8) }
    static let windowsPhone = Array("windows phone".utf8)
    static let iosDevices = ["iphone", "ipad", "ipod"].map { Array($0.utf8) }
    static let android = Array("android".utf8)

    /// `windows_phone` first (its User-Agents also name Android and iPhone), then iOS devices, then Android.
    /// Names are compared ASCII case-insensitively.
    public static func platform(userAgent: String?) -> HitPlatform {
        guard let agent = userAgent else { return .web }
        if ASCIIText.contains(agent, marker: windowsPhone) { return .windowsPhone }
        if iosDevices.contains(where: { ASCIIText.contains(agent, marker: $0) }) { return .ios }
        if ASCIIText.contains(agent, marker: android) { return .android }
        return .web
    }

    /// The product name every alstats tool gives in its User-Agent: `alstats-resolve/0.1.0`, `alstats-check/0.1.0`.
    public static let toolPrefix = "alstats-"

    /// Whether the hit is a crawler's or a tool's, not a person's: every `HEAD`, every User-Agent with a
    /// ``crawlerMarkers`` entry (ASCII case-insensitively), and every User-Agent with a product whose name starts
    /// with ``toolPrefix`` (`alstats-resolve/0.1.0`, alone or after other products): alstats' own tools fetch a
    /// page to check it, and no person follows the link then.
    public static func isCrawler(userAgent: String?, method: String) -> Bool {
        if method.uppercased() == "HEAD" { return true }
        guard let agent = userAgent else { return false }
        return crawlerMarkerBytes.contains { ASCIIText.contains(agent, marker: $0) } || isTool(userAgent: agent)
    }

    /// Whether one of the products of `agent` (its words, between spaces, parentheses and semicolons) is an alstats
    /// tool's, `alstats-NAME`.
    static func isTool(userAgent agent: String) -> Bool {
        agent.split(whereSeparator: { " ();,".contains($0) }).contains { product in
            product.count > toolPrefix.count && product.lowercased().hasPrefix(toolPrefix)
        }
    }

    /// The lowercased host of a `Referer` header, or `nil` when absent or not a URL with a host.
    public static func referrerHost(_ referer: String?) -> String? {
        guard let referer, let host = URLComponents(string: referer)?.host, !host.isEmpty else { return nil }
        return host.lowercased()
    }
}
