import EventStore
import Foundation
import HostedLinks
import Hummingbird
import MeasurementEvents

/// The hosted App Link pages (links.md), with no key: `GET`/`HEAD /l/{slug}` (the page for everyone, the
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
        let link: HostedLink?
        if let cached = catalog.cachedLink(slug) { link = cached } else { link = try await catalog.link(slug) }
        let hit = LinkHitRequest(
            method: request.method.rawValue, slug: slug, status: link == nil ? 404 : 200,
            query: LinkRoutes.queryItems(request.uri.query),
            headers: request.headers.map { ($0.name.rawName, $0.value) }, peerAddress: peerAddress(request, context))
        recorder.record(
            MeasurementEvent(
                name: LinkHitRequest.eventName, fields: hit.fields(link: link, hasher: hasher),
                timestamp: clock.nowMilliseconds()))
        let html: String
        if let link {
            let base = publicURL ?? "http://\(request.head.authority ?? "localhost")"
            let page = HostedLinkPage(link: link, publicURL: base, query: hit.query)
            html = page.html(alTagsOnly: HostedLinkPage.prefersALTagsOnly(hit.header("Prefer-Html-Meta-Tags")))
        } else {
            html = HostedLinkPage.notFound(slug: slug)
        }
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        headers[.contentLength] = String(html.utf8.count)
        let body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: html))
        return Response(status: link == nil ? .notFound : .ok, headers: headers, body: body)
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

    /// The query items in order, percent-decoded (`+` as a space); a name without `=` has no value.
    static func queryItems(_ query: String?) -> [(name: String, value: String?)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            guard let equals = item.firstIndex(of: "=") else { return (decode(item), nil) }
            return (decode(item[..<equals]), decode(item[item.index(after: equals)...]))
        }
    }

    /// A verified-link file: `application/json`, or 404 when its part of the config is absent.
    static func file(_ body: String?) throws -> Response {
        guard let body else {
            throw EventServerError(.notFound, "not configured: add ios_app_ids or android_apps to the serve config")
        }
        return Response.text(body, contentType: "application/json")
    }
}
