import Foundation
import MeasurementEvents

/// The hosted link a person clicked before installing the app (a deferred deep link, docs/install.md), as the
/// collector answered the app's claim of the click: what to open, and the click's `ref` and passed values.
///
/// The click travels as a random token (``clickParameter``): on Android in the Play Store's install referrer, on iOS
/// in the URL the page copied to the pasteboard when the person tapped the App Store button. ``clickToken(installReferrer:)``
/// and ``clickToken(pasteboard:linkHost:)`` take the token and nothing else of what the platform hands over; the claim
/// itself goes over the uploader's transport (`DeferredLinkClaim`, module EventUpload).
///
/// ```swift
/// let token = DeferredAppLink.clickToken(installReferrer: referrerDetails.installReferrer)
/// let outcome = try await DeferredLinkClaim(configuration, install: install).claim(token, platform: .android)
/// if let link = outcome.link, let url = link.url { open(url); link.recordOpen() }
/// ```
public struct DeferredAppLink: Sendable, Hashable {
    /// The query parameter that carries a click token: `alstats_click`.
    public static let clickParameter = "alstats_click"

    /// The slug of the hosted link.
    public var slug: String
    /// The URL to open: the link's first app target for the platform, with its `ref` and passed values and
    /// `al_applink_data` as an App Link navigation carries it; `nil` when the link has no app target there.
    public var url: String?
    /// The click's `ref`, when the page had one.
    public var ref: String?
    /// The other values the page passed on (the link's `pass_query`), by name.
    public var query: [String: String]
    /// When the person clicked (the page view or the store button), ms since the Unix epoch.
    public var clickedAt: Int64
    /// From the click to the claim, in ms.
    public var delayMilliseconds: Int64

    /// Creates a deferred link.
    public init(
        slug: String, url: String?, ref: String? = nil, query: [String: String] = [:], clickedAt: Int64,
        delayMilliseconds: Int64
    ) {
        self.slug = slug
        self.url = url
        self.ref = ref
        self.query = query
        self.clickedAt = clickedAt
        self.delayMilliseconds = delayMilliseconds
    }

    /// The link of a claim's `200` answer: `{"slug", "url", "ref", "query", "clicked_at", "delay_ms"}`
    /// (docs/http-api.md, `POST /v1/deferred`).
    /// - Throws: ``DeferredLinkError/badAnswer(_:)`` when `answer` is not such an object.
    public init(answer: JSONValue) throws(DeferredLinkError) {
        guard case .object(let object) = answer, let slug = object["slug"]?.stringValue else {
            throw .badAnswer("the answer has no \"slug\"")
        }
        guard let clicked = object["clicked_at"]?.stringValue, let clickedAt = Self.milliseconds(rfc3339: clicked)
        else { throw .badAnswer("the answer's \"clicked_at\" is not an RFC 3339 time") }
        guard case .int(let delay) = object["delay_ms"] ?? .null else {
            throw .badAnswer("the answer's \"delay_ms\" is not an integer")
        }
        var query: [String: String] = [:]
        if case .object(let values) = object["query"] ?? .null {
            for member in values { if let text = member.value.stringValue { query[member.key] = text } }
        }
        self.init(
            slug: slug, url: object["url"]?.stringValue, ref: object["ref"]?.stringValue, query: query,
            clickedAt: clickedAt, delayMilliseconds: delay)
    }

    /// The `al_nav_in` of opening ``url``: the fields ``AppLinkURL/event(sourceApplication:)`` gives (its
    /// `targetURL` is the link's canonical URL, so the link's arrivals count it), with `deferred` `1`; `nil`
    /// without a URL.
    public func event() -> AppLinkEvent? {
        guard let url, var event = AppLinkURL(parsing: url).event(), event.name == EventName.navIn else { return nil }
        event.fields[FieldName.deferred] = "1"
        if event.fields[FieldName.ref] == nil, let ref { event.fields[FieldName.ref] = ref }
        return event
    }

    /// Reports that the app opened ``url``: posts ``event()`` (nothing without a URL).
    /// - Parameter bus: where to post; by default ``MeasurementEventBus/shared``.
    public func recordOpen(on bus: MeasurementEventBus = .shared) {
        guard let event = event() else { return }
        bus.post(event.name, fields: event.fields)
    }

    /// Milliseconds since the Unix epoch of an RFC 3339 time (`2025-11-21T10:00:00.250Z`), or `nil`.
    static func milliseconds(rfc3339 text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970 * 1000) }
    }
}

extension DeferredAppLink {
    /// Whether `text` is a click token: 22 characters of base64url (`A-Z a-z 0-9 - _`) encoding 16 bytes (its last
    /// character one of `A Q g w`, the only ones whose unused low bits are zero).
    public static func isClickToken(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 22, bytes.allSatisfy(isBase64URL) else { return false }
        return "AQgw".utf8.contains(bytes[21])
    }

    /// The click token of a Play Store install referrer: the text the Play Install Referrer API gives the installed
    /// app (`alstats_click=TOKEN&utm_source=alstats&utm_medium=link&utm_campaign=SLUG`). Only its `alstats_click`
    /// member is taken, and only when it is a token; any other text gives `nil`.
    ///
    /// ```swift
    /// DeferredAppLink.clickToken(installReferrer: "utm_source=google-play&utm_medium=organic")   // nil
    /// ```
    public static func clickToken(installReferrer: String) -> String? {
        guard let token = QueryParameters.parse(installReferrer)[clickParameter], isClickToken(token) else {
            return nil
        }
        return token
    }

    /// The click token of the pasteboard's text when it is a hosted link's URL with one: `https://linkHost/l/...`
    /// (or `http`) whose query holds `alstats_click`. Anything else the person may have copied gives `nil`, and
    /// nothing of the text but the token is kept.
    ///
    /// ```swift
    /// DeferredAppLink.clickToken(pasteboard: "https://go.example.com/l/invite?alstats_click=3q2-7wAAAAAAAAAAAAAAAA",
    ///                            linkHost: "go.example.com")   // "3q2-7wAAAAAAAAAAAAAAAA"
    /// ```
    public static func clickToken(pasteboard: String, linkHost: String) -> String? {
        let text = pasteboard.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count <= 2048, let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            components.user == nil, components.password == nil,
            components.host?.lowercased() == linkHost.lowercased(), components.path.hasPrefix("/l/"),
            let query = components.percentEncodedQuery
        else { return nil }
        guard let token = QueryParameters.parse(query)[clickParameter], isClickToken(token) else { return nil }
        return token
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
