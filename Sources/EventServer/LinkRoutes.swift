import EventStoreInterface
import Foundation
import HostedLinks
import Hummingbird
import MeasurementEvents

/// The hosted App Link pages (docs/hosted-links.md), with no key: `GET`/`HEAD /l/{slug}` (the page for everyone, the
/// dynamic endpoint's parameters, `Prefer-Html-Meta-Tags: al`, a 404 page for an unknown slug), every one
/// recorded as an `alstats_link_hit` off the response path, and the verified-link files under
/// `/.well-known/` (404 when not configured).
///
/// A person's `GET` of a page with a store button mints a click token (docs/install.md): recorded with the hit
/// (field `click`), held for the store (``ClickTokenRecorder``), and written into the page's store buttons.
struct LinkRoutes {
    typealias Context = ServerRequestContext

    let catalog: LinkCatalog
    let recorder: LinkHitRecorder
    let clicks: ClickTokenRecorder
    let hasher: VisitorHasher
    /// `--public-url`; without it, the page's canonical URL is built from the request's `Host`.
    let publicURL: String?
    let trustProxy: Bool
    let verifiedLinks: VerifiedLinkConfig
    let clock: any EventClock

    func addRoutes(to router: Router<Context>) {
        router.get("l/:slug") { request, context in try await page(request, context: context) }
        router.head("l/:slug") { request, context in try await page(request, context: context) }
        router.get(".well-known/apple-app-site-association") { _, _ in
            try LinkRoutes.file(verifiedLinks.appleAppSiteAssociation)
        }
        router.get(".well-known/assetlinks.json") { _, _ in try LinkRoutes.file(verifiedLinks.assetLinks) }
    }

    private func page(_ request: Request, context: Context) async throws -> Response {
        let slug = context.parameters.get("slug") ?? ""
        // A page's fast path: the links in memory, without suspending (an `await` would hop off the event loop).
        let lookup: LinkLookup
        if let cached = catalog.cachedLink(slug) { lookup = cached } else { lookup = try await catalog.link(slug) }
        let link = lookup.link
        var hit = hitRequest(request, context: context, slug: slug, status: link == nil ? 404 : 200)
        let now = clock.nowMilliseconds()
        let page = link.map { HostedLinkPage(link: $0, publicURL: base(request), query: hit.query) }
        let alTagsOnly = HostedLinkPage.prefersALTagsOnly(hit.header(LinkRoutes.preferMetaTags))
        // A person's page has a click token in its store buttons: a GET mints one; a HEAD (a crawler's, always)
        // mints none but answers with the length of the page its GET would get (a token's length is fixed).
        let withClick =
            page.map { !alTagsOnly && LinkStoreHop.hasStore($0.link) } == true
            && !HitClassifier.isCrawler(userAgent: hit.header("User-Agent"), method: "GET")
        if let page, withClick, request.method == .get {
            let click = ClickToken.mint(at: now)
            hit.click = click
            clicks.record(StoredClick(token: click, slug: slug, mintedMilliseconds: now, query: page.passedQuery))
        }
        recorder.record(
            MeasurementEvent(
                name: LinkHitRequest.eventName, fields: hit.fields(link: link, hasher: hasher), timestamp: now))
        let html: ByteBuffer
        if let page {
            html = render(page, generation: lookup.generation, alTagsOnly: alTagsOnly, withClick: withClick, hit: hit)
        } else {
            html = ByteBuffer(string: HostedLinkPage.notFound(slug: slug))
        }
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        headers[.contentLength] = String(html.readableBytes)
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: html)
        return Response(status: link == nil ? .notFound : .ok, headers: headers, body: body)
    }

    /// What a hit (or a store hop's tap) records of `request`.
    func hitRequest(_ request: Request, context: Context, slug: String, status: Int) -> LinkHitRequest {
        LinkHitRequest(
            method: request.method.rawValue, slug: slug, status: status,
            query: LinkHitRequest.queryItems(request.uri.query), headers: LinkRoutes.hitHeaders(request.headers),
            peerAddress: peerAddress(request, context))
    }

    /// The URL the pages' canonical URLs start with: `--public-url`, else the request's `Host`.
    func base(_ request: Request) -> String {
        publicURL ?? "http://\(request.head.authority ?? "localhost")"
    }

    /// The page for the request: from the catalog's page cache, or rendered and kept there; with the hit's click
    /// token written into its places.
    private func render(
        _ page: HostedLinkPage, generation: Int, alTagsOnly: Bool, withClick: Bool, hit: LinkHitRequest
    ) -> ByteBuffer {
        // The body puts the visitor's platform first; the head is the same for every visitor.
        let platform = alTagsOnly ? .web : HitClassifier.platform(userAgent: hit.header("User-Agent"))
        let key = LinkPageCache.Key(
            slug: page.link.slug, generation: generation, base: page.publicURL, alTagsOnly: alTagsOnly,
            passed: page.passedQuery, platform: platform, click: withClick)
        let cached: LinkPageCache.Page
        if let found = catalog.pages.page(for: key) {
            cached = found
        } else if withClick {
            cached = .withClick(placeholder: ClickToken.mint(at: clock.nowMilliseconds())) {
                page.html(platform: platform, click: $0)
            }
            catalog.pages.store(cached, for: key)
        } else {
            cached = LinkPageCache.Page(html: ByteBuffer(string: page.html(alTagsOnly: alTagsOnly, platform: platform)))
            catalog.pages.store(cached, for: key)
        }
        return hit.click.map(cached.filled(with:)) ?? cached.html
    }

    /// The request header that asks for the `al:*` tags only.
    static let preferMetaTags = "Prefer-Html-Meta-Tags"
    /// The headers a hit or its page reads; the others are not copied for the hit.
    static let hitHeaderNames: [HTTPFields.Element.Name] = [
        .userAgent, .referer, HTTPFields.Element.Name(preferMetaTags)!,
    ]

    /// The request's headers that ``hitHeaderNames`` names, in order, as the hit takes them.
    static func hitHeaders(_ fields: HTTPFields) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for field in fields where hitHeaderNames.contains(field.name) {
            headers.append((field.name.rawName, field.value))
        }
        return headers
    }

    /// The client's address: the socket's peer, or with `--trust-proxy` the first `X-Forwarded-For` entry.
    func peerAddress(_ request: Request, _ context: Context) -> String {
        if trustProxy, let name = HTTPFields.Element.Name("X-Forwarded-For"), let forwarded = request.headers[name],
            let first = forwarded.split(separator: ",").first
        {
            return first.trimmingCharacters(in: CharacterSet.whitespaces)
        }
        return context.remoteAddress?.ipAddress ?? ""
    }

    /// A verified-link file: `application/json`, or 404 when its part of the config is absent.
    static func file(_ body: String?) throws -> Response {
        guard let body else {
            throw EventServerError(.notFound, "not configured: add ios_app_ids or android_apps to the serve config")
        }
        return Response.text(body, contentType: "application/json")
    }
}
