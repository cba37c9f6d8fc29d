import AppLinks
import Foundation
import MeasurementEvents

/// The world `alstats demo` simulates: our news app "Readly", the apps that link to it, the partner pages
/// it links out to (with their App Link meta tags), and one iPhone per visit with some apps installed.
enum DemoWorld {
    /// Our app: the one whose events are measured.
    static let ourScheme = "readly"
    static let ourName = "Readly"

    /// An app that sends people to Readly, with its share of arrivals and how often people go back to it.
    struct Referer {
        var name: String?
        var bundle: String
        var backURL: String
        var weight: Int
        var returnPercent: Int
    }

    static let referers = [
        Referer(name: "Facebook", bundle: "com.facebook.Facebook", backURL: "fb://feed", weight: 42, returnPercent: 34),
        Referer(
            name: "Messenger", bundle: "com.facebook.Messenger", backURL: "fb-messenger://threads", weight: 20,
            returnPercent: 61),
        Referer(
            name: "Instagram", bundle: "com.burbn.instagram", backURL: "instagram://feed", weight: 16, returnPercent: 22
        ),
        Referer(name: "Mail", bundle: "com.apple.mobilemail", backURL: "message://inbox", weight: 8, returnPercent: 9),
        Referer(name: nil, bundle: "com.apple.mobilesafari", backURL: "", weight: 14, returnPercent: 0),
    ]

    /// The app whose update breaks its App Links handling in the simulation's second week: from
    /// ``DemoSimulation/breakage`` on, opening its scheme fails (`open_failed`) on every device that has it, so
    /// that the success of video.example.org falls from 100% to about 40%.
    static let brokenScheme = "clips"

    /// The `ref` categories of inbound links, weighted.
    static let inboundRefs: [(String, Int)] = [
        ("feed", 40), ("share", 22), ("notification", 16), ("search", 12), ("ad", 10),
    ]

    /// A partner page Readly links out to, and how it resolves.
    struct Page {
        var host: String
        var html: String?
        /// Why resolving fails, for pages that cannot be had.
        var failure: AppLinkError?
        var weight: Int
        /// The app's scheme and how many devices have it installed, in percent.
        var scheme: String?
        var installedPercent: Int
    }

    static let pages = [
        Page(
            host: "recipes.example.com",
            html: html(scheme: "cookbook", appName: "Cookbook", storeID: "1001", fallback: nil),
            failure: nil, weight: 30, scheme: "cookbook", installedPercent: 45),
        Page(
            host: "shop.example.net",
            html: html(scheme: "shopper", appName: "Shopper", storeID: "1002", fallback: "false"),
            failure: nil, weight: 20, scheme: "shopper", installedPercent: 35),
        Page(
            host: "video.example.org", html: html(scheme: "clips", appName: "Clips", storeID: "1003", fallback: "true"),
            failure: nil, weight: 25, scheme: "clips", installedPercent: 60),
        Page(
            host: "maps.example.com", html: "<html><head><title>No App Links here</title></head></html>", failure: nil,
            weight: 15, scheme: nil, installedPercent: 0),
        Page(host: "old.example.io", html: nil, failure: .httpStatus(404), weight: 6, scheme: nil, installedPercent: 0),
        Page(
            host: "slow.example.io", html: nil, failure: .timedOut(seconds: 10), weight: 4, scheme: nil,
            installedPercent: 0),
    ]

    /// A page with iPhone and iOS targets, an Android target and web tags, as partner sites publish them.
    static func html(scheme: String, appName: String, storeID: String, fallback: String?) -> String {
        var tags = [
            #"<meta property="al:iphone:url" content="\#(scheme)://item/42" />"#,
            #"<meta property="al:iphone:app_store_id" content="\#(storeID)" />"#,
            #"<meta property="al:iphone:app_name" content="\#(appName)" />"#,
            #"<meta property="al:ios:url" content="\#(scheme)-legacy://item/42" />"#,
            #"<meta property="al:android:url" content="\#(scheme)://item/42" />"#,
            #"<meta property="al:android:package" content="com.example.\#(scheme)" />"#,
        ]
        if let fallback { tags.append(#"<meta property="al:web:should_fallback" content="\#(fallback)" />"#) }
        return "<html><head>\n" + tags.joined(separator: "\n") + "\n</head><body>content</body></html>"
    }

    /// Resolves the demo's pages from memory, or fails as their sites do.
    struct Resolver: AppLinkResolving {
        let metadata: [String: AppLinkMetadata]
        let failures: [String: AppLinkError]

        init() {
            var metadata: [String: AppLinkMetadata] = [:]
            var failures: [String: AppLinkError] = [:]
            for page in DemoWorld.pages {
                if let html = page.html { metadata[page.host] = AppLinkMetadata(html: html) }
                if let failure = page.failure { failures[page.host] = failure }
            }
            self.metadata = metadata
            self.failures = failures
        }

        func appLink(for url: URL) async throws(AppLinkError) -> AppLink {
            let host = url.host ?? ""
            if let failure = failures[host] { throw failure }
            guard let page = metadata[host] else { throw .httpStatus(404) }
            return page.appLink(sourceURL: url, platform: .iphone)
        }
    }
}

/// The draws of the demo's simulation, on the package's seeded generator, so that a seed gives the same
/// simulation every time.
extension SeededGenerator {
    /// `true` with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &self) < percent
    }

    /// One of `items`, in proportion to its weight.
    mutating func pick<T>(_ items: [T], weight: (T) -> Int) -> T {
        let total = items.reduce(0) { $0 + weight($1) }
        var roll = Int.random(in: 0..<max(1, total), using: &self)
        for item in items {
            roll -= weight(item)
            if roll < 0 { return item }
        }
        return items[items.count - 1]
    }
}
