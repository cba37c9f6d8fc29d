import EventStoreInterface
import Foundation
import HostedLinks
import Hummingbird
import MeasurementEvents

/// The hosted App Link pages (docs/hosted-links.md), with no key: `GET`/`HEAD /l/{slug}` (the page for everyone, the
/// dynamic endpoint's parameters, `Prefer-Html-Meta-Tags: al`, a 404 page for an unknown slug), every one
/// recorded as an `alstats_link_hit` off the response path, and the verified-link files under
/// `/.well-known/` (404 when not configured).
struct LinkRoutes {
    typealias Context = ServerRequestContext

    let catalog: LinkCatalog
    let recorder: LinkHitRecorder
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
        let lookup: LinkLookup
        if let cached = catalog.cachedLink(slug) { lookup = cached } else { lookup = try await catalog.link(slug) }
        let link = lookup.link
        let hit = LinkHitRequest(
            method: request.method.rawValue, slug: slug, status: link == nil ? 404 : 200,
            query: LinkHitRequest.queryItems(request.uri.query),
            headers: LinkRoutes.hitHeaders(request.headers), peerAddress: peerAddress(request, context))
        recorder.record(
            MeasurementEvent(
                name: LinkHitRequest.eventName, fields: hit.fields(link: link, hasher: hasher),
                timestamp: clock.nowMilliseconds()))
        let html: ByteBuffer
        if let link {
            html = render(link, lookup: lookup, request: request, hit: hit)
        } else {
            html = ByteBuffer(string: HostedLinkPage.notFound(slug: slug))
        }
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        headers[.contentLength] = String(html.readableBytes)
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: html)
        return Response(status: link == nil ? .notFound : .ok, headers: headers, body: body)
    }

    /// The page of `link` for the request: from the catalog's page cache, or rendered and kept there.
    private func render(_ link: HostedLink, lookup: LinkLookup, request: Request, hit: LinkHitRequest) -> ByteBuffer {
        let base = publicURL ?? "http://\(request.head.authority ?? "localhost")"
        let page = HostedLinkPage(link: link, publicURL: base, query: hit.query)
        let alTagsOnly = HostedLinkPage.prefersALTagsOnly(hit.header(LinkRoutes.preferMetaTags))
        // The body puts the visitor's platform first; the head is the same for every visitor.
        let platform = alTagsOnly ? .web : HitClassifier.platform(userAgent: hit.header("User-Agent"))
        let key = LinkPageCache.Key(
            slug: link.slug, generation: lookup.generation, base: base, alTagsOnly: alTagsOnly,
            passed: page.passedQuery, platform: platform)
        if let cached = catalog.pages.page(for: key) { return cached }
        let html = ByteBuffer(string: page.html(alTagsOnly: alTagsOnly, platform: platform))
        catalog.pages.store(html, for: key)
        return html
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
    private func peerAddress(_ request: Request, _ context: Context) -> String {
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
