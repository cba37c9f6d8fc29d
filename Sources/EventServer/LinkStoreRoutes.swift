import EventStoreInterface
import HostedLinks
import Hummingbird
import Logging
import MeasurementEvents

/// The store hop of the hosted links (docs/install.md), with no key: `GET`/`HEAD /l/{slug}/store/{ios|android}`, where
/// a page's store buttons lead. It takes the button's click token when it is one minted for this slug within the claim
/// window, else mints one (a store link shared on its own still counts), records the tap as `alstats_link_store` off
/// the response path, and answers `302` to the store: Google Play with the token in its install referrer, the App
/// Store as it is. Crawlers and `HEAD` get the redirect and no token. 404 for an unknown slug, an unknown platform,
/// or a platform the link has no store target for.
struct LinkStoreRoutes {
    typealias Context = ServerRequestContext

    /// The pages' routes, whose look-up, request reading and recorders the hop shares.
    let pages: LinkRoutes
    let logger: Logger

    func addRoutes(to router: Router<Context>) {
        router.get("l/:slug/store/:platform") { request, context in try await hop(request, context: context) }
        router.head("l/:slug/store/:platform") { request, context in try await hop(request, context: context) }
    }

    private func hop(_ request: Request, context: Context) async throws -> Response {
        let slug = context.parameters.get("slug") ?? ""
        let lookup: LinkLookup
        if let cached = pages.catalog.cachedLink(slug) {
            lookup = cached
        } else {
            lookup = try await pages.catalog.link(slug)
        }
        guard let platform = context.parameters.get("platform").flatMap(StorePlatform.init(rawValue:)),
            let link = lookup.link, LinkStoreHop.target(of: link, platform: platform) != nil
        else {
            throw EventServerError(.notFound, "no store for this link: \(request.uri.path)")
        }
        var tap = pages.hitRequest(request, context: context, slug: slug, status: 302)
        let now = pages.clock.nowMilliseconds()
        if !HitClassifier.isCrawler(userAgent: tap.header("User-Agent"), method: tap.method) {
            tap.click = await click(for: tap, link: link, base: pages.base(request), now: now)
        }
        pages.recorder.record(
            MeasurementEvent(
                name: EventName.linkStore,
                fields: tap.storeTapFields(link: link, platform: platform, hasher: pages.hasher), timestamp: now))
        let location = LinkStoreHop.storeURL(link: link, platform: platform, click: tap.click) ?? ""
        return Response(
            status: .found, headers: [.location: location, .cacheControl: "no-store", .contentLength: "0"])
    }

    /// The tap's click token: the button's, when it is a token minted for this slug within the window (held or
    /// stored); else a new one, held for the store with the passed values of the hop's query.
    private func click(for tap: LinkHitRequest, link: HostedLink, base: String, now: Int64) async -> String {
        if let given = tap.query.first(where: { $0.name == ClickToken.parameter })?.value,
            ClickToken.isToken(given)
        {
            do {
                if let found = try await pages.clicks.click(given), found.slug == link.slug,
                    found.mintedMilliseconds >= pages.clicks.windowStart
                {
                    return given
                }
            } catch {
                logger.warning("a store button's click token could not be looked up; a new one is minted: \(error)")
            }
        }
        let page = HostedLinkPage(link: link, publicURL: base, query: tap.query)
        let click = ClickToken.mint(at: now)
        pages.clicks.record(
            StoredClick(token: click, slug: link.slug, mintedMilliseconds: now, query: page.passedQuery))
        return click
    }
}
