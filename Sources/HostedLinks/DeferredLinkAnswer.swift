import Foundation
import MeasurementEvents

/// What the collector answers to an installed app's successful claim of a click (`POST /v1/deferred`, docs/install.md),
/// and the `alstats_link_install` event the first claim records: the link clicked, the URL its page would have
/// opened in the app, the click's passed values and the delay from the click to the claim.
///
/// ```swift
/// let answer = DeferredLinkAnswer(slug: "invite", query: "referral=42&ref=mail", clickedAt: click, claimedAt: now,
///                                 platform: .android)
/// answer.json(link: invite, publicURL: "https://go.example.com")   // {"slug": "invite", "url": "couchin://...", ...}
/// answer.installFields   // ["slug": "invite", "platform": "android", "ref": "mail", "query/referral": "42", ...]
/// ```
public struct DeferredLinkAnswer: Sendable, Hashable {
    /// The name of the event of a first claim.
    public static let eventName = EventName.linkInstall

    /// The slug of the link clicked.
    public var slug: String
    /// The values the page passed on, percent-encoded as its URLs carried them (`referral=42&ref=mail`).
    public var query: String
    /// When the person clicked, ms since the Unix epoch.
    public var clickedAt: Int64
    /// When the app claimed the click (its first claim), ms since the Unix epoch.
    public var claimedAt: Int64
    /// The platform the app runs on.
    public var platform: StorePlatform

    /// Creates an answer.
    public init(slug: String, query: String, clickedAt: Int64, claimedAt: Int64, platform: StorePlatform) {
        self.slug = slug
        self.query = query
        self.clickedAt = clickedAt
        self.claimedAt = claimedAt
        self.platform = platform
    }

    /// From the click to the claim, in ms (never negative).
    public var delayMilliseconds: Int64 { max(0, claimedAt - clickedAt) }

    /// The passed values: `ref`, and the others by name.
    public var passed: (ref: String?, others: [(name: String, value: String)]) {
        var ref: String?
        var others: [(name: String, value: String)] = []
        for item in LinkHitRequest.queryItems(query) {
            if item.name == "ref" {
                ref = ref ?? item.value ?? ""
            } else {
                others.append((item.name, item.value ?? ""))
            }
        }
        return (ref, others)
    }

    /// The fields of the `alstats_link_install` event: `slug`, `platform`, `ref`, `query/NAME`, `delay_ms`, and no
    /// other (no install id, no token).
    public var installFields: [String: String] {
        let (ref, others) = passed
        var fields = ["slug": slug, "platform": platform.rawValue, "delay_ms": String(delayMilliseconds)]
        if let ref { fields["ref"] = ref }
        for (name, value) in others { fields["query/\(name)"] = value }
        return fields
    }

    /// The answer's JSON: `{"slug", "url", "ref", "query": {NAME: value}, "clicked_at", "delay_ms"}`; `url` is
    /// ``appURL(link:publicURL:)`` (`null` without one, or when the link is gone), `ref` `null` without one.
    public func json(link: HostedLink?, publicURL: String) -> JSONValue {
        let (ref, others) = passed
        let url = link.flatMap { appURL(link: $0, publicURL: publicURL) }
        return .object(
            JSONObject([
                ("slug", .string(slug)), ("url", url.map(JSONValue.string) ?? .null),
                ("ref", ref.map(JSONValue.string) ?? .null),
                ("query", .object(JSONObject(others.map { ($0.name, JSONValue.string($0.value)) }))),
                ("clicked_at", .string(Self.rfc3339(clickedAt))), ("delay_ms", .int(delayMilliseconds)),
            ]))
    }

    /// The URL the page would have opened in the app: the link's first app target for the platform (its first
    /// `ios`, `iphone` or `ipad` target with a URL; its first `android` one) with the passed values appended exactly
    /// as on the page, and `al_applink_data` as an App Link navigation carries it: `target_url` the link's canonical
    /// URL with the same query, `version` `1.0`, no `referer_app_link`. `nil` when the link has no such target.
    public func appURL(link: HostedLink, publicURL: String) -> String? {
        let targets = platform.groups.flatMap { link.targets[$0] ?? [] }
        guard let url = targets.lazy.compactMap(\.url).first, HostedLink.isSafeAbsoluteURL(url) else { return nil }
        let canonical = link.canonicalURL(publicURL: publicURL)
        let target = query.isEmpty ? canonical : canonical + "?" + query
        let data = JSONValue.object(JSONObject([("target_url", .string(target)), ("version", .string("1.0"))]))
        let withQuery = PageText.appending(query: query, to: url)
        return PageText.appending(query: "al_applink_data=" + PercentEncoding.encode(data.jsonText()), to: withQuery)
    }

    /// `milliseconds` as RFC 3339 UTC with milliseconds: `2025-11-21T10:00:00.250Z`.
    static func rfc3339(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
