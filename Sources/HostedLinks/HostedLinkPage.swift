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
    ///
    /// The head is the same for every visitor (no cloaking). The body is what a person taps: the link's title,
    /// description and image (shown only when it is on the page's own origin: the page loads nothing from
    /// elsewhere), then the buttons for the visitor's `platform` first, the first of them prominent, the web
    /// fallback, and the other platforms' buttons below. It needs no script; its style is inline.
    ///
    /// The store buttons go through the store hop (`/l/{slug}/store/ios`, `/android`), which counts the tap and
    /// redirects to the store, with the visitor's `click` token when there is one (docs/install.md); the App Store
    /// button also carries the URL that the page's one inline script (``script``, allowed by its hash in the page's
    /// Content-Security-Policy) copies to the pasteboard when it is tapped, for the app to claim once installed.
    public func html(alTagsOnly: Bool = false, platform: HitPlatform = .web, click: String? = nil) -> String {
        if alTagsOnly { return "<!DOCTYPE html>\n<html><head>\n" + alTags() + "</head></html>\n" }
        let title = PageText.html(link.title ?? link.slug)
        var page = "<!DOCTYPE html>\n<html lang=\"en\"><head>\n<meta charset=\"utf-8\">\n"
        page += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(Self.contentSecurityPolicy)\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<title>\(title)</title>\n" + alTags() + ogTags() + "<style>\(Self.style)</style>\n</head>\n"
        page += "<body>\n<main>\n"
        if let image = link.image, isOnOwnOrigin(image) {
            page += "<img class=\"image\" src=\"\(PageText.html(image))\" alt=\"\">\n"
        }
        page += "<h1>\(title)</h1>\n"
        if let description = link.description { page += "<p class=\"description\">\(PageText.html(description))</p>\n" }
        let buttons = self.buttons(for: platform, click: click)
        page += buttons.mine.enumerated().map { index, button in
            button.html(class: index == 0 ? "button primary" : "button")
        }.joined()
        if let web = buttons.web {
            page += web.html(class: buttons.mine.isEmpty ? "button primary" : "button web")
        }
        if !buttons.others.isEmpty {
            page += "<section class=\"more\">\n<h2>For a different device</h2>\n"
            page += buttons.others.map { $0.html(class: "alt") }.joined() + "</section>\n"
        }
        page += "</main>\n<script>\(Self.script)</script>\n</body></html>\n"
        return page
    }

    /// The page's one script: a tap on a button with `data-alstats-copy` copies that URL to the pasteboard, then
    /// follows the button (at once when the browser has no clipboard API, else once the copy is done or after a
    /// second). Without script the button is followed as any link.
    public static let script = """
        document.addEventListener("click",function(e){var a=e.target.closest&&e.target.closest("a[data-alstats-copy]");\
        if(!a||!navigator.clipboard||!navigator.clipboard.writeText)return;e.preventDefault();var done=false;\
        var go=function(){if(!done){done=true;location.href=a.href}};\
        navigator.clipboard.writeText(a.getAttribute("data-alstats-copy")).then(go,go);setTimeout(go,1000)});
        """

    /// The Content-Security-Policy source of ``script``: `'sha256-...'` of its text.
    public static let scriptHash = "'sha256-" + Data(SHA256.digest(Array(script.utf8))).base64EncodedString() + "'"

    /// The page's Content-Security-Policy: nothing loads but images of its own origin, its inline style and its one
    /// script (by hash).
    public static let contentSecurityPolicy =
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src \(scriptHash); base-uri 'none'; "
        + "form-action 'none'"

    /// The page's inline style: readable on a phone, the first button large, light and dark.
    static let style = """
        :root{color-scheme:light dark;--fg:#1d1d1f;--bg:#f5f5f7;--card:#fff;--accent:#0a66d8;--muted:#6e6e73}\
        @media (prefers-color-scheme:dark){:root{--fg:#f5f5f7;--bg:#000;--card:#1c1c1e;--accent:#4c9bff;\
        --muted:#a1a1a6}}\
        *{box-sizing:border-box}\
        body{margin:0;background:var(--bg);color:var(--fg);font:17px/1.45 -apple-system,system-ui,"Segoe UI",\
        Roboto,sans-serif}\
        main{max-width:28rem;margin:0 auto;padding:2rem 1.25rem;text-align:center}\
        .image{width:100%;max-height:14rem;object-fit:cover;border-radius:1rem;margin-bottom:1rem}\
        h1{font-size:1.6rem;line-height:1.2;margin:.5rem 0}\
        .description{color:var(--muted);margin:0 0 1.5rem}\
        .button{display:block;margin:.75rem 0;padding:.85rem 1rem;border-radius:.8rem;background:var(--card);\
        color:var(--accent);font-weight:600;text-decoration:none;border:1px solid rgba(127,127,127,.25)}\
        .primary{background:var(--accent);color:#fff;font-size:1.1rem;padding:1.05rem 1rem;border:0}\
        .web{background:none}\
        .more{margin-top:2.5rem;border-top:1px solid rgba(127,127,127,.25);padding-top:1rem}\
        .more h2{font-size:.85rem;font-weight:600;color:var(--muted);text-transform:uppercase;\
        letter-spacing:.04em;margin:0 0 .5rem}\
        .alt{display:block;padding:.4rem 0;color:var(--accent);text-decoration:none;font-size:.95rem}
        """

    /// Whether `url` is on the origin of the page itself (``publicURL``): the only images the page shows.
    func isOnOwnOrigin(_ url: String) -> Bool {
        HostedLink.isSafeAbsoluteURL(url) && url.lowercased().hasPrefix(publicURL.lowercased() + "/")
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

    /// One button of the body: where it goes and what it says.
    struct Button {
        /// The followable URL.
        var url: String
        /// The text.
        var text: String
        /// The URL the page's script copies to the pasteboard when the button is tapped, if any.
        var copy: String? = nil

        /// The anchor, with `class`.
        func html(class name: String) -> String {
            let copied = copy.map { " data-alstats-copy=\"\(PageText.html($0))\"" } ?? ""
            return "<a class=\"\(name)\" href=\"\(PageText.html(url))\"\(copied)>\(PageText.html(text))</a>\n"
        }
    }

    /// The platform groups whose targets a visitor on `platform` can open, in the order they are offered.
    static func groups(for platform: HitPlatform) -> [LinkPlatformGroup] {
        switch platform {
        case .ios: [.ios, .iphone, .ipad]
        case .android: [.android]
        case .windowsPhone: [.windowsPhone, .windowsUniversal, .windows]
        case .web: []
        }
    }

    /// The body's buttons: those of the visitor's platform (open in the app, then its store), the web fallback,
    /// and every other platform's, each group in the link's order.
    func buttons(for platform: HitPlatform, click: String?) -> (mine: [Button], web: Button?, others: [Button]) {
        let mine = Self.groups(for: platform)
        let others = LinkPlatformGroup.allCases.filter { !mine.contains($0) }
        let web = link.web?.url.flatMap(dynamicURL).map { Button(url: $0, text: "Continue on the web") }
        return (
            mine.flatMap { buttons(of: $0, naming: false, click: click) }, web,
            others.flatMap { buttons(of: $0, naming: true, click: click) }
        )
    }

    /// The buttons of a group's targets: open in the app (naming the device when `naming`, for the other
    /// platforms' buttons), the App Store, Google Play; the store buttons through the store hop with `click`.
    func buttons(of group: LinkPlatformGroup, naming: Bool, click: String?) -> [Button] {
        var buttons: [Button] = []
        for target in link.targets[group] ?? [] {
            let app = target.appName ?? "the app"
            if let url = target.url.flatMap(dynamicURL) {
                buttons.append(Button(url: url, text: "Open in \(app)" + (naming ? Self.deviceSuffix(group) : "")))
            }
            if target.appStoreId != nil {
                let copy = click.map { link.canonicalURL(publicURL: publicURL) + "?\(ClickToken.parameter)=" + $0 }
                buttons.append(Button(url: hopURL(.ios, click: click), text: "Get \(app) on the App Store", copy: copy))
            }
            if target.package != nil {
                buttons.append(Button(url: hopURL(.android, click: click), text: "Get \(app) on Google Play"))
            }
        }
        return buttons
    }

    /// The store hop of `platform` for this page: `/l/{slug}/store/{platform}?alstats_click=TOKEN&` and the passed
    /// values, as the page's own URLs carry them.
    func hopURL(_ platform: StorePlatform, click: String?) -> String {
        let token = click.map { "\(ClickToken.parameter)=" + PageText.percentEncoded($0) }
        let query = [token, encodedQuery.isEmpty ? nil : encodedQuery].compactMap { $0 }.joined(separator: "&")
        return LinkStoreHop.path(slug: link.slug, platform: platform) + (query.isEmpty ? "" : "?" + query)
    }

    /// What a button of `group` adds after the app's name, so that the other platforms' buttons say which is
    /// which.
    static func deviceSuffix(_ group: LinkPlatformGroup) -> String {
        switch group {
        case .ios: " (iOS)"
        case .iphone: " (iPhone)"
        case .ipad: " (iPad)"
        case .android: " (Android)"
        case .windowsPhone: " (Windows Phone)"
        case .windows: " (Windows)"
        case .windowsUniversal: " (Windows)"
        }
    }

    static func meta(_ tag: (property: String, content: String?)) -> String {
        let property = "<meta property=\"\(PageText.html(tag.property))\""
        guard let content = tag.content else { return property + ">\n" }
        return property + " content=\"\(PageText.html(content))\">\n"
    }

}
