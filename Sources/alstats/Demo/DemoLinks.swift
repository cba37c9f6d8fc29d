import AppLinks
import Foundation
import HostedLinks
import MeasurementEvents

/// Readly's hosted App Links in `alstats demo`: pages at `https://go.readly.example/l/{slug}` that people
/// and link previewers open, each open recorded as an `alstats_link_hit` with the fields the server builds
/// (``LinkHitRequest``, ``VisitorHasher``); some of the people then arrive in the app through the page's
/// App Link, with the page as `target_url`, through the real AppLinks parser.
struct DemoLinks {
    /// The public URL the demo's links are served under (recorded in the database for the report).
    static let publicURL = "https://go.readly.example"

    /// The links, as `alstats links put` would store them.
    static let links: [HostedLink] = [
        #"{"slug": "invite", "title": "Join me on Readly", "pass_query": ["referral"], "#
            + #""ios": [{"url": "readly://invite", "app_store_id": "1234567", "app_name": "Readly"}], "#
            + #""android": [{"url": "readly://invite", "package": "example.readly"}], "#
            + #""web": {"url": "https://readly.example.com/invite"}}"#,
        #"{"slug": "autumn-sale", "title": "Readly Premium: 50% off", "#
            + #""ios": [{"url": "readly://premium", "app_store_id": "1234567"}], "#
            + #""android": [{"url": "readly://premium", "package": "example.readly"}], "#
            + #""web": {"url": "https://readly.example.com/premium"}}"#,
        #"{"slug": "daily-digest", "title": "Today on Readly", "#
            + #""ios": [{"url": "readly://digest", "app_store_id": "1234567"}], "#
            + #""web": {"url": "https://readly.example.com/digest", "should_fallback": false}}"#,
    ].map { text in
        // The demo's own literals: valid by construction (DemoCLITests runs them).
        guard let link = try? HostedLink(json: JSONValue.parse(text)) else { preconditionFailure(text) }
        return link
    }

    /// Where links are shared, weighted: the ref category and the app the page is opened from.
    static let shares: [(ref: String, app: String, referer: String, weight: Int)] = [
        ("share", "Messenger", "https://www.messenger.com/", 35), ("mail", "Mail", "", 25),
        ("feed", "Facebook", "https://m.facebook.com/", 30), ("sms", "Messages", "", 10),
    ]
    static let people = [
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15",
    ]
    static let crawlers = [
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "Slackbot-LinkExpanding 1.0",
        "WhatsApp/2.24.10.85 A", "Twitterbot/1.0",
    ]

    let hasher: VisitorHasher

    /// Visitor keys drawn from `seed`, one per simulated UTC day of `clock`: the same seed gives the same hits.
    init(seed: UInt64, clock: ManualEventClock) {
        let keys = StateLock(SeededGenerator(seed: seed ^ 0x6C69_6E6B))
        hasher = VisitorHasher(
            now: { Date(timeIntervalSince1970: Double(clock.nowMilliseconds()) / 1_000) },
            randomKey: { keys.withLock { ($0.next(), $0.next()) } })
    }

    /// One open of a hosted link page: a person (sometimes at a mistyped slug) or a previewer. Returns the
    /// request and the link it found, so that the caller can let the person arrive in the app. A person's GET of a
    /// page with a store button carries a click token, as the server mints one (docs/install.md).
    func hit(
        random: inout SeededGenerator, clicks: inout SeededGenerator, at now: Int64, on bus: MeasurementEventBus
    ) -> (LinkHitRequest, HostedLink?) {
        let link = random.pick(DemoLinks.links) { $0.slug == "invite" ? 5 : $0.slug == "autumn-sale" ? 3 : 2 }
        let share = random.pick(DemoLinks.shares, weight: \.weight)
        var query: [(name: String, value: String?)] = [("ref", share.ref)]
        if link.passQuery.contains("referral") {
            query.append(("referral", String(Int.random(in: 1_000...1_099, using: &random))))
        }
        let crawler = random.chance(18)
        let agent = crawler ? random.pick(DemoLinks.crawlers) { _ in 1 } : random.pick(DemoLinks.people) { _ in 1 }
        var headers = [(name: "User-Agent", value: agent)]
        if !share.referer.isEmpty, !crawler { headers.append(("Referer", share.referer)) }
        let mistyped = !crawler && random.chance(3)
        let address =
            crawler
            ? "192.0.2.\(Int.random(in: 1...9, using: &random))"
            : "198.51.100.\(Int.random(in: 1...60, using: &random))"
        var request = LinkHitRequest(
            method: crawler && random.chance(30) ? "HEAD" : "GET", slug: mistyped ? link.slug + "s" : link.slug,
            status: mistyped ? 404 : 200, query: query, headers: headers, peerAddress: address)
        let found = mistyped ? nil : link
        if !crawler, !mistyped, LinkStoreHop.hasStore(link) { request.click = ClickToken.mint(at: now, using: &clicks) }
        bus.post(LinkHitRequest.eventName, fields: request.fields(link: found, hasher: hasher))
        return (request, found)
    }

    /// The person of `request` on a phone with Readly installed taps "open in the app": the app that shows
    /// the page reads its App Link (the real renderer and parser) and opens Readly with `al_applink_data`
    /// whose `target_url` is the page, which Readly records as `al_nav_in`. Returns `false` when the page has
    /// no App Link for the phone's platform (the person stays on the web).
    func arrive(after request: LinkHitRequest, link: HostedLink, on bus: MeasurementEventBus) -> Bool {
        let platform: AppLinkPlatform =
            HitClassifier.platform(userAgent: request.header("User-Agent")) == .android
            ? .android : .iphone
        let passed = request.query.compactMap { item in item.value.map { "\(item.name)=\($0)" } }
        let pageURL = link.canonicalURL(publicURL: DemoLinks.publicURL) + "?" + passed.joined(separator: "&")
        let page = HostedLinkPage(link: link, publicURL: DemoLinks.publicURL, query: request.query)
        guard let source = URL(string: pageURL),
            let target = AppLinkMetadata(html: page.html()).appLink(sourceURL: source, platform: platform).targets
                .first?.url
        else { return false }
        let ref = request.query.first { $0.name == "ref" }?.value ?? ""
        let app = DemoLinks.shares.first { $0.ref == ref }?.app ?? "Safari"
        let data: JSONObject = [
            "target_url": .string(pageURL), "ref": .string(ref), "version": "1.0",
            "referer_app_link": ["app_name": .string(app)],
        ]
        let url = AppLinkNavigation.url(target, appending: data)?.absoluteString ?? target.absoluteString
        AppLinkURL(parsing: url).recordOpen(sourceApplication: "com.example.\(app.lowercased())", on: bus)
        return true
    }
}

/// The install path of `alstats demo` (docs/install.md): a person without the app taps the page's store button
/// (recorded as the store hop records it), installs later, and the app claims the click, opens on the link (a
/// deferred `al_nav_in`, through the real AppLinks code) and records its first open; other installs come with no
/// link (organic first opens).
extension DemoLinks {
    /// A tap on a store button whose person installs the app later.
    struct PendingInstall {
        /// When the install's first launch comes, ms since the Unix epoch.
        var due: Int64
        var link: HostedLink
        var click: Int64
        /// The passed values of the page, as the click keeps them.
        var query: String
        var platform: StorePlatform
    }

    /// The person of `request` on a phone without the app taps the store button of their platform: posts the
    /// `alstats_link_store` event the hop records. Returns the install to come, when the person installs (`due` after
    /// a delay of a minute to two days, drawn from `random`), else `nil`.
    func tapStore(
        after request: LinkHitRequest, viewedAt viewed: Int64, link: HostedLink, installs: Bool,
        random: inout SeededGenerator, clock: ManualEventClock, on bus: MeasurementEventBus
    ) -> PendingInstall? {
        let platform: StorePlatform =
            HitClassifier.platform(userAgent: request.header("User-Agent")) == .android ? .android : .ios
        guard LinkStoreHop.target(of: link, platform: platform) != nil else { return nil }
        bus.post(EventName.linkStore, fields: request.storeTapFields(link: link, platform: platform, hasher: hasher))
        guard installs else { return nil }
        let page = HostedLinkPage(link: link, publicURL: DemoLinks.publicURL, query: request.query)
        let delay = Int64.random(in: 60_000...(2 * 86_400_000), using: &random)
        return PendingInstall(
            due: clock.nowMilliseconds() + delay, link: link, click: viewed, query: page.passedQuery,
            platform: platform)
    }

    /// The first launch of a pending install: the collector's `alstats_link_install` of the claim, the app's deferred
    /// `al_nav_in` from the claim's answer (the real `DeferredAppLink`), and its `alstats_first_open` (the real
    /// `AppInstall`), attributed. Posts 3 events (2 when the link has no app to open on the platform); returns how
    /// many.
    func install(
        _ pending: PendingInstall, installID: String, clock: ManualEventClock, on bus: MeasurementEventBus
    ) -> Int {
        let answer = DeferredLinkAnswer(
            slug: pending.link.slug, query: pending.query, clickedAt: pending.click,
            claimedAt: clock.nowMilliseconds(), platform: pending.platform)
        bus.post(DeferredLinkAnswer.eventName, fields: answer.installFields)
        let app = AppInstall(id: installID)
        _ = app.beginClaim()
        try? app.endClaim(.attributed)
        var posted = 1
        if let link = try? DeferredAppLink(answer: answer.json(link: pending.link, publicURL: DemoLinks.publicURL)),
            link.event() != nil
        {
            link.recordOpen(on: bus)
            posted += 1
        }
        if (try? app.recordFirstOpen(on: bus)) == true { posted += 1 }
        return posted
    }

    /// An install that came with no link: its claim finds no click, its first open is organic. Posts 1 event.
    func organicInstall(installID: String, on bus: MeasurementEventBus) {
        let app = AppInstall(id: installID)
        _ = app.beginClaim()
        try? app.endClaim(.unattributed)
        _ = try? app.recordFirstOpen(on: bus)
    }
}
