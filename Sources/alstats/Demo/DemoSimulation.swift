import AppLinks
import Foundation
import HostedLinks
import MeasurementEvents

/// Drives the real App Links code through a simulated fortnight of Readly visits, posting every event to
/// a bus: inbound links (`al_nav_in`, or a counted rejection), outbound navigations to partner pages
/// (`al_nav_out`: app, web or fail), returns to the referer (`al_ref_back_out`), and opens of Readly's
/// hosted App Link pages (`alstats_link_hit`) of which some lead into the app (``DemoLinks``).
struct DemoSimulation {
    /// 2025-11-03T00:00:00Z: the simulated fortnight starts here, whatever the day the demo runs.
    static let start: Int64 = 1_762_128_000_000
    static let span: Int64 = 14 * 86_400_000
    /// 2025-11-10T00:00:00Z: the second week, when an update of the Clips app breaks its App Links handling
    /// (opening a `clips://` URL fails, ``DemoWorld/brokenScheme``), so that
    /// `alstats report --since 2025-11-10 --until 2025-11-17 --compare previous` shows the alert.
    static let breakage: Int64 = start + 7 * 86_400_000

    var events: Int
    var seed: UInt64

    /// What the simulation did.
    struct Summary {
        var visits = 0
        var posted = 0
    }

    /// Runs the simulation on `bus`, whose clock must be `clock`; returns when `events` events are posted.
    func run(on bus: MeasurementEventBus, clock: ManualEventClock) async -> Summary {
        var random = SeededGenerator(seed: seed)
        // The install path draws from a generator of its own, so that the rest of the traffic is what it was.
        var paths = SeededGenerator(seed: seed ^ 0x696E_7374_616C_6C73)
        var summary = Summary()
        let resolver = DemoWorld.Resolver()
        let links = DemoLinks(seed: seed, clock: clock)
        let step = max(1, DemoSimulation.span / Int64(max(1, events)))
        clock.set(milliseconds: DemoSimulation.start)
        func tick() { clock.advance(by: Int64.random(in: 1...(2 * step), using: &random)) }
        var installs = InstallQueue()

        while summary.posted < events {
            summary.visits += 1
            // Installs whose first launch has come: the app claims its click and opens on the link.
            summary.posted += installs.launch(due: clock, links: links, room: events - summary.posted, on: bus)
            // 0. Now and then a visit starts on one of Readly's hosted link pages, shared in another app.
            if random.chance(14) {
                summary.posted += linkVisit(
                    links, random: &random, paths: &paths, clock: clock, step: step, room: events - summary.posted,
                    installs: &installs, on: bus)
                continue
            }
            // Now and then Readly is installed from the store without a link: an organic first open.
            if paths.chance(1), summary.posted < events {
                links.organicInstall(installID: installs.nextID(), on: bus)
                summary.posted += 1
            }
            // 1. Someone taps a link in another app: Readly opens, parses it, records al_nav_in.
            let referer = random.pick(DemoWorld.referers, weight: \.weight)
            let ref = random.pick(DemoWorld.inboundRefs, weight: \.1).0
            let inbound = AppLinkURL(parsing: inboundURL(referer: referer, ref: ref, random: &random))
            tick()
            inbound.recordOpen(sourceApplication: referer.bundle, on: bus)
            summary.posted += 1

            // 2. The reader follows zero to two links to partner content, on this visit's device.
            let installed = Set(
                DemoWorld.pages.compactMap { page in
                    page.scheme.flatMap { random.chance(page.installedPercent) ? $0 : nil }
                })
            for _ in 0..<Int.random(in: 0...2, using: &random) where summary.posted < events {
                let page = random.pick(DemoWorld.pages, weight: \.weight)
                let pageURL = URL(string: "https://\(page.host)/item/\(Int.random(in: 1...500, using: &random))")!
                tick()
                await AppLinkNavigation.navigate(
                    to: pageURL, resolver: resolver, appLinkData: ["ref": .string(inbound.ref ?? ref)],
                    referer: AppLinkReferer(url: "\(DemoWorld.ourScheme)://article", appName: DemoWorld.ourName),
                    canOpen: { url in
                        guard let scheme = url.scheme?.lowercased() else { return false }
                        return scheme == "https" || installed.contains(scheme)
                    },
                    open: { url in
                        clock.nowMilliseconds() < DemoSimulation.breakage
                            || url.scheme?.lowercased() != DemoWorld.brokenScheme
                    }, on: bus)
                summary.posted += 1
            }

            // 3. Some go back to the app they came from, through the "Touch to return to ..." bar.
            if let back = AppLinkReturnToReferer(inbound: inbound), random.chance(referer.returnPercent),
                summary.posted < events
            {
                let stillInstalled = random.chance(97)
                tick()
                back.navigate(canOpen: { _ in stillInstalled }, open: { _ in true }, on: bus)
                summary.posted += 1
            }
        }
        return summary
    }

    /// Someone (or a link previewer) opens a hosted link page; a person on a phone may then open Readly from
    /// it, or, without Readly, tap the store button and perhaps install it later. Posts at most `room` events;
    /// returns how many it posted.
    private func linkVisit(
        _ links: DemoLinks, random: inout SeededGenerator, paths: inout SeededGenerator, clock: ManualEventClock,
        step: Int64, room: Int, installs: inout InstallQueue, on bus: MeasurementEventBus
    ) -> Int {
        clock.advance(by: Int64.random(in: 1...(2 * step), using: &random))
        let (request, link) = links.hit(random: &random, clicks: &paths, at: clock.nowMilliseconds(), on: bus)
        let agent = request.header("User-Agent")
        guard room > 1, let link, !HitClassifier.isCrawler(userAgent: agent, method: request.method),
            HitClassifier.platform(userAgent: agent) != .web
        else { return 1 }
        if random.chance(48) {
            clock.advance(by: Int64.random(in: 1...step, using: &random))
            return links.arrive(after: request, link: link, on: bus) ? 2 : 1
        }
        // Without Readly: a third tap the store button, and about half of them install it later.
        guard paths.chance(35) else { return 1 }
        let installing = paths.chance(45)
        if let pending = links.tapStore(
            after: request, viewedAt: clock.nowMilliseconds(), link: link, installs: installing, random: &paths,
            clock: clock, on: bus)
        {
            installs.add(pending)
        }
        return LinkStoreHop.target(of: link, platform: Self.store(of: agent)) == nil ? 1 : 2
    }

    /// The store a phone's User-Agent leads to.
    static func store(of agent: String?) -> StorePlatform {
        HitClassifier.platform(userAgent: agent) == .android ? .android : .ios
    }

    /// The installs to come, by their first launch, and the install ids of the simulated apps.
    struct InstallQueue {
        private var pending: [DemoLinks.PendingInstall] = []
        private var installed = 0

        mutating func add(_ install: DemoLinks.PendingInstall) {
            pending.append(install)
            pending.sort { $0.due < $1.due }
        }

        /// A new install id (deterministic: the demo's events are the same for a seed).
        mutating func nextID() -> String {
            installed += 1
            return "demo-install-\(installed)"
        }

        /// Launches the installs whose time has come, 3 events each, within `room`; returns the events posted.
        mutating func launch(due clock: ManualEventClock, links: DemoLinks, room: Int, on bus: MeasurementEventBus)
            -> Int
        {
            var posted = 0
            while let first = pending.first, first.due <= clock.nowMilliseconds(), room - posted >= 3 {
                pending.removeFirst()
                posted += links.install(first, installID: nextID(), clock: clock, on: bus)
            }
            return posted
        }
    }

    /// The URL another app opens Readly with: an App Link with `al_applink_data` (target, ref, extras,
    /// the referer's back link), now and then a legacy Facebook link, a malformed payload or a newer version.
    private func inboundURL(referer: DemoWorld.Referer, ref: String, random: inout SeededGenerator) -> String {
        let article = Int.random(in: 1...2_000, using: &random)
        let target = "https://readly.example.com/article/\(article)?ref=\(ref)"
        let roll = Int.random(in: 0..<1_000, using: &random)
        if roll < 15 {
            // Cut short: the JSON never closes.
            return "\(DemoWorld.ourScheme)://article/\(article)?al_applink_data=%7B%22target_url%22%3A%22https"
        }
        if roll < 22 {
            return "\(DemoWorld.ourScheme)://article/\(article)?al_applink_data="
                + "%7B%22version%22%3A%222.0%22%2C%22target_url%22%3A%22https%3A%2F%2Freadly.example.com%22%7D"
        }
        if referer.name == "Facebook", roll < 60 {
            let token = String(format: "EAAB%016llx", UInt64.random(in: 0...UInt64.max, using: &random))
            // Letters and digits kept, as Foundation's `.alphanumerics` keeps them in these ASCII URLs.
            let encoded = PercentEncoding.encode(target) {
                PercentEncoding.isUnreserved($0) && !"-._~".utf8.contains($0)
            }
            return "fb1234567890://authorize#expires_in=5183999&access_token=\(token)&target_url=\(encoded)"
        }
        var data: JSONObject = ["target_url": .string(target), "ref": .string(ref), "version": "1.0"]
        data["extras"] = ["fb_app_id": 1_234_567_890, "campaign": .string("autumn-\(ref)")]
        if let name = referer.name {
            data["referer_app_link"] = ["app_name": .string(name), "url": .string(referer.backURL)]
        }
        let base = URL(string: "\(DemoWorld.ourScheme)://article/\(article)")!
        return AppLinkNavigation.url(base, appending: data)?.absoluteString ?? base.absoluteString
    }
}
