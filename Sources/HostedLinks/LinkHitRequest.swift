import Foundation

/// What the server knows of one `GET` or `HEAD` of `/l/{slug}`, from which ``fields(link:hasher:)``
/// builds the `alstats_link_hit` event's fields (docs/events.md, `alstats_link_hit`).
///
/// ```swift
/// let request = LinkHitRequest(method: "GET", slug: "invite", status: 200, query: [("ref", "mail")],
///                              headers: [("User-Agent", "Twitterbot/1.0")], peerAddress: "203.0.113.7")
/// request.fields(link: link, hasher: hasher)["crawler"]   // "1"
/// ```
public struct LinkHitRequest: Sendable {
    /// The name of the hit event.
    public static let eventName = "alstats_link_hit"

    /// `GET` or `HEAD`.
    public var method: String
    /// The requested slug.
    public var slug: String
    /// The answer's status, 200 or 404.
    public var status: Int
    /// The query items in order; a `nil` value for a name without `=`.
    public var query: [(name: String, value: String?)]
    /// The request headers (names compared case-insensitively).
    public var headers: [(name: String, value: String)]
    /// The client address: the socket's peer (or `X-Forwarded-For`, decided by the server).
    public var peerAddress: String
    /// The click token the server minted (or took) for this request, recorded as the field `click`; `nil` for a
    /// crawler's or `HEAD` request, and where the page has no store button (docs/install.md).
    public var click: String?

    /// Creates a request description.
    public init(
        method: String, slug: String, status: Int, query: [(name: String, value: String?)],
        headers: [(name: String, value: String)], peerAddress: String, click: String? = nil
    ) {
        self.method = method
        self.slug = slug
        self.status = status
        self.query = query
        self.headers = headers
        self.peerAddress = peerAddress
        self.click = click
    }

    /// The items of a request's query in order, percent-decoded with `+` as a space; a name without `=` has
    /// no value; an item whose `%` escapes do not decode to UTF-8, or decode to a NUL (`%00`, which no store keeps:
    /// PostgreSQL's text cannot hold it), is kept as sent (with `+` as a space).
    ///
    /// ```swift
    /// LinkHitRequest.queryItems("ref=a+b&referral=%3C1%3E&flag")   // [("ref", "a b"), ("referral", "<1>"), ("flag", nil)]
    /// ```
    public static func queryItems(_ query: String?) -> [(name: String, value: String?)] {
        guard let query, !query.isEmpty else { return [] }
        func decode(_ text: Substring) -> String {
            if let decoded = ASCIIText.formDecoded(text), !decoded.utf8.contains(0) { return decoded }
            return String(text).replacingOccurrences(of: "+", with: " ")
        }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            guard let equals = item.firstIndex(of: "=") else { return (decode(item), nil) }
            return (decode(item[..<equals]), decode(item[item.index(after: equals)...]))
        }
    }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
    }

    /// The hit's fields: `slug`, `status`, `ref`, `query/NAME` for each passed `pass_query` value of `link`
    /// (none for an unknown slug), `platform`, `crawler`, `referrerHost`, `visitor` and `click` (when ``click`` is
    /// set). The address itself is never among them. A request with `Prefer-Html-Meta-Tags: al` is an App Links
    /// resolver's (an app reading the tags before it opens a link), a crawler's whatever its User-Agent says.
    public func fields(link: HostedLink?, hasher: VisitorHasher) -> [String: String] {
        let userAgent = header("User-Agent")
        let resolver = HostedLinkPage.prefersALTagsOnly(header("Prefer-Html-Meta-Tags"))
        var fields = [
            "slug": slug, "status": String(status),
            "platform": HitClassifier.platform(userAgent: userAgent).rawValue,
            "crawler": resolver || HitClassifier.isCrawler(userAgent: userAgent, method: method) ? "1" : "0",
            "visitor": hasher.visitor(address: peerAddress, userAgent: userAgent),
        ]
        if let ref = query.first(where: { $0.name == "ref" }) { fields["ref"] = ref.value ?? "" }
        for name in link?.passQuery ?? [] where name != "ref" {
            if let item = query.first(where: { $0.name == name }) { fields["query/\(name)"] = item.value ?? "" }
        }
        if let host = HitClassifier.referrerHost(header("Referer")) { fields["referrerHost"] = host }
        if let click { fields["click"] = click }
        return fields
    }
}
