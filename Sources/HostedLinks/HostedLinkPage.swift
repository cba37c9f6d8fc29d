import Foundation

/// The UTF-8 HTML of `GET /l/{slug}`: the `al:*` tags of the link's targets with the request's passed
/// parameters appended (the dynamic endpoint), the `og:*` tags, and a body a person can use without script.
///
/// ```swift
/// let page = HostedLinkPage(link: link, publicURL: "https://go.example", query: [("ref", "mail")])
/// page.html()                  // the full page
/// page.html(alTagsOnly: true)  // for `Prefer-Html-Meta-Tags: al`
/// ```
public struct HostedLinkPage: Sendable {
    /// The link shown.
    public var link: HostedLink
    /// The server's public URL (`--public-url`), which the canonical `og:url` starts with.
    public var publicURL: String
    /// The passed parameters: for each of ``HostedLink/passedNames``, the request's first value, if any.
    public var passed: [(name: String, value: String)] {
        didSet { encodedQuery = PageText.query(passed) }
    }
    /// ``passed`` percent-encoded as `name=value&...`, once for every URL of the page.
    private var encodedQuery: String

    /// The passed values as the page's URLs carry them (`name=value&...`, percent-encoded, in the link's
    /// ``HostedLink/passedNames`` order): two requests with the same value here get the same page, so a
    /// server can keep rendered pages under it.
    public var passedQuery: String { encodedQuery }

    /// Creates the page for a request with `query` items (name, value; `nil` for a name without `=`).
    public init(link: HostedLink, publicURL: String, query: [(name: String, value: String?)]) {
        self.link = link
        self.publicURL = publicURL
        let passed = link.passedNames.compactMap { name in
            query.first(where: { $0.name == name }).map { (name, $0.value ?? "") }
        }
        self.passed = passed
        encodedQuery = PageText.query(passed)
    }

    /// Whether a `Prefer-Html-Meta-Tags` header value asks for the `al:*` tags only (it lists `al`).
    public static func prefersALTagsOnly(_ headerValue: String?) -> Bool {
        guard let headerValue else { return false }
        return headerValue.split(separator: ",").contains {
            $0.trimmingCharacters(in: .whitespaces).lowercased() == "al"
        }
    }

    /// The page; with `alTagsOnly`, a document whose head holds only the `al:*` tags.
    public func html(alTagsOnly: Bool = false) -> String {
        if alTagsOnly { return "<!DOCTYPE html>\n<html><head>\n" + alTags() + "</head></html>\n" }
        let title = PageText.html(link.title ?? link.slug)
        var page = "<!DOCTYPE html>\n<html><head>\n<meta charset=\"utf-8\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<title>\(title)</title>\n" + alTags() + ogTags() + "</head>\n<body>\n<h1>\(title)</h1>\n"
        if let description = link.description { page += "<p>\(PageText.html(description))</p>\n" }
        page += "<ul>\n" + bodyLinks().map { "<li>\($0)</li>\n" }.joined() + "</ul>\n</body></html>\n"
        return page
    }

    /// The small page answered with 404 for an unknown slug.
    public static func notFound(slug: String) -> String {
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Link not found</title></head>\n"
            + "<body><h1>Link not found</h1><p>No link is named \(PageText.html(slug)).</p></body></html>\n"
    }

    /// A followable URL with the passed parameters appended, or `nil` for a refused one (defence in depth:
    /// validation already refuses them).
    func dynamicURL(_ url: String) -> String? {
        guard HostedLink.isSafeAbsoluteURL(url) else { return nil }
        return PageText.appending(query: encodedQuery, to: url)
    }

    func alTags() -> String {
        var tags: [(String, String?)] = []
        for group in LinkPlatformGroup.allCases {
            let targets = link.targets[group] ?? []
            let separated = !Self.pairsByPosition(targets, keys: group.keys)
            for target in targets {
                if separated { tags.append(("al:\(group.rawValue)", nil)) }
                for key in group.keys {
                    guard var value = target.values[key] else { continue }
                    if key == "url" {
                        guard let url = dynamicURL(value) else { continue }
                        value = url
                    }
                    tags.append(("al:\(group.rawValue):\(key)", value))
                }
            }
        }
        if let web = link.web {
            if let url = web.url.flatMap(dynamicURL) { tags.append(("al:web:url", url)) }
            tags.append(("al:web:should_fallback", web.shouldFallback ? "true" : "false"))
        }
        return tags.map(Self.meta).joined()
    }

    /// Whether repeated tags pairing up by position give back `targets`: each key is held by a leading run
    /// of the targets. Otherwise (say the first target has no `app_name` and the second has one), each
    /// target is started with a bare `<meta property="al:ios">`, which starts a new group for parsers
    /// that follow the App Links layout (ours, Bolts).
    static func pairsByPosition(_ targets: [LinkTarget], keys: [String]) -> Bool {
        keys.allSatisfy { key in
            let holders = targets.map { $0.values[key] != nil }
            return !holders.drop(while: { $0 }).contains(true)
        }
    }

    func ogTags() -> String {
        var tags: [(String, String?)] = []
        if let title = link.title { tags.append(("og:title", title)) }
        if let description = link.description { tags.append(("og:description", description)) }
        if let image = link.image, HostedLink.isSafeAbsoluteURL(image) { tags.append(("og:image", image)) }
        tags.append(("og:url", link.canonicalURL(publicURL: publicURL)))
        return tags.map(Self.meta).joined()
    }

    /// The body's anchors: open in the app, the stores, the web.
    func bodyLinks() -> [String] {
        var anchors: [String] = []
        for group in LinkPlatformGroup.allCases {
            for target in link.targets[group] ?? [] {
                if let url = target.url.flatMap(dynamicURL) {
                    anchors.append(Self.anchor(url, "Open in \(target.appName ?? "the app") (\(group.rawValue))"))
                }
                if let id = target.appStoreId {
                    let url = "https://apps.apple.com/app/id" + PageText.percentEncoded(id)
                    anchors.append(Self.anchor(url, "Get \(target.appName ?? "the app") on the App Store"))
                }
                if let package = target.package {
                    let url = "https://play.google.com/store/apps/details?id=" + PageText.percentEncoded(package)
                    anchors.append(Self.anchor(url, "Get \(target.appName ?? "the app") on Google Play"))
                }
            }
        }
        if let url = link.web?.url.flatMap(dynamicURL) { anchors.append(Self.anchor(url, "Continue on the web")) }
        return anchors
    }

    static func meta(_ tag: (property: String, content: String?)) -> String {
        let property = "<meta property=\"\(PageText.html(tag.property))\""
        guard let content = tag.content else { return property + ">\n" }
        return property + " content=\"\(PageText.html(content))\">\n"
    }

    static func anchor(_ url: String, _ text: String) -> String {
        "<a href=\"\(PageText.html(url))\">\(PageText.html(text))</a>"
    }
}
