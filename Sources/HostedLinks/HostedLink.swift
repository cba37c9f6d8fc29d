import MeasurementEvents

/// A link hosted at `/l/{slug}`: the page's title and image, the app targets by platform group, the web
/// fallback and the query parameters the dynamic endpoint passes on (docs/hosted-links.md).
///
/// ```swift
/// let link = try HostedLink(json: JSONValue.parse(#"{"slug":"invite","web":{"url":"https://a.example/"}}"#))
/// link.jsonValue.jsonText()   // the canonical JSON stored in the database
/// ```
public struct HostedLink: Sendable, Hashable {
    /// The web fallback: `al:web:url` and `al:web:should_fallback`.
    public struct Web: Sendable, Hashable {
        /// The http(s) URL for a visitor without the app.
        public var url: String?
        /// Whether a visitor without the app goes to the web; `true` unless given as `false`.
        public var shouldFallback: Bool

        /// Creates a web fallback.
        public init(url: String?, shouldFallback: Bool = true) {
            self.url = url
            self.shouldFallback = shouldFallback
        }
    }

    /// 1 to 64 of `A-Z a-z 0-9 _ -`.
    public var slug: String
    /// The page title (`og:title`).
    public var title: String?
    /// The page description (`og:description`).
    public var description: String?
    /// The page image URL (`og:image`).
    public var image: String?
    /// The targets of each platform group, in preference order.
    public var targets: [LinkPlatformGroup: [LinkTarget]]
    /// The web fallback, when given.
    public var web: Web?
    /// The request parameters passed on to every target and web URL (besides `ref`, always passed).
    public var passQuery: [String]

    /// Creates a link; call ``validate()`` before storing it.
    public init(
        slug: String, title: String? = nil, description: String? = nil, image: String? = nil,
        targets: [LinkPlatformGroup: [LinkTarget]] = [:], web: Web? = nil, passQuery: [String] = []
    ) {
        self.slug = slug
        self.title = title
        self.description = description
        self.image = image
        self.targets = targets
        self.web = web
        self.passQuery = passQuery
    }

    /// The names whose request values the page appends: `pass_query` then `ref`, each once.
    public var passedNames: [String] {
        var names: [String] = []
        for name in passQuery + ["ref"] where !names.contains(name) { names.append(name) }
        return names
    }

    /// The canonical URL of the link: `publicURL` (without a trailing `/`) + `/l/` + slug.
    public func canonicalURL(publicURL: String) -> String {
        var base = publicURL
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/l/" + slug
    }
}
