import AppLinks
import Foundation
import Testing

let pageURL = URL(string: "https://example.com/article?ref=page")!

func metaTags(_ pairs: [(String, String?)]) -> String {
    pairs.map { property, content in
        content.map { #"<meta property="\#(property)" content="\#($0)">"# } ?? #"<meta property="\#(property)">"#
    }.joined(separator: "\n")
}

struct AppLinkMetadataTests {
    static let allPlatforms = metaTags([
        ("al:ios:url", "ios://1"), ("al:ios:app_store_id", "1"), ("al:ios:app_name", "iOS"),
        ("al:iphone:url", "iphone://1"), ("al:iphone:app_store_id", "2"),
        ("al:ipad:url", "ipad://1"),
        ("al:android:url", "android://1"), ("al:android:package", "com.example"), ("al:android:class", "Main"),
        ("al:android:app_name", "Droid"),
        ("al:web:url", "https://example.com/web"),
    ])

    @Test(arguments: [
        (AppLinkPlatform.iphone, ["iphone://1", "ios://1"]),
        (AppLinkPlatform.ipad, ["ipad://1", "ios://1"]),
        (AppLinkPlatform.android, ["android://1"]),
    ])
    func ordersTargetsByPlatform(platform: AppLinkPlatform, urls: [String]) {
        let link = AppLinkMetadata(html: Self.allPlatforms).appLink(sourceURL: pageURL, platform: platform)
        #expect(link.targets.map { $0.url?.absoluteString } == urls)
        #expect(link.webURL?.absoluteString == "https://example.com/web")
    }

    @Test func readsEveryFieldOfATarget() {
        let metadata = AppLinkMetadata(html: Self.allPlatforms)
        #expect(
            metadata.targets(for: .android) == [
                AppLinkTarget(
                    url: URL(string: "android://1"), package: "com.example", className: "Main", appName: "Droid")
            ])
        #expect(
            metadata.targets(for: .iphone).last
                == AppLinkTarget(url: URL(string: "ios://1"), appStoreId: "1", appName: "iOS"))
    }

    @Test func platformTagStartsANewGroupAndRepeatedKeysPairByPosition() {
        let html = metaTags([
            ("al:ios", nil), ("al:ios:url", "a://1"), ("al:ios:app_name", "A"),
            ("al:ios", nil), ("al:ios:url", "b://1"), ("al:ios:url", "c://1"), ("al:ios:app_name", "B"),
            ("al:ios:app_store_id", "1"), ("al:ios:app_store_id", "2"), ("al:ios:app_store_id", "3"),
        ])
        let targets = AppLinkMetadata(html: html).targets(for: .iphone)
        #expect(targets.map { $0.url?.absoluteString } == ["a://1", "b://1", "c://1", nil])
        #expect(targets.map(\.appName) == ["A", "B", nil, nil])
        #expect(targets.map(\.appStoreId) == [nil, "1", "2", "3"])
    }

    @Test func missingContentIsAnAbsentValue() {
        let html = metaTags([
            ("al:ios:url", nil), ("al:ios:url", "b://1"), ("al:ios:app_name", nil), ("al:ios:app_name", "B"),
        ])
        let targets = AppLinkMetadata(html: html).targets(for: .iphone)
        #expect(targets == [AppLinkTarget(url: URL(string: "b://1"), appName: "B")])
    }

    @Test(
        arguments: [
            ("no", false), ("NO", false), ("false", false), ("False", false), ("0", false), (" no ", false),
            ("yes", true), ("true", true), ("1", true), ("", true), ("nope", true), (nil, true),
        ] as [(String?, Bool)])
    func shouldFallbackDecidesTheWebURL(value: String?, keeps: Bool) {
        let html = metaTags([("al:web:url", "https://example.com/web"), ("al:web:should_fallback", value)])
        let link = AppLinkMetadata(html: html).appLink(sourceURL: pageURL, platform: .iphone)
        #expect(link.webURL == (keeps ? URL(string: "https://example.com/web") : nil))
    }

    @Test(
        arguments: [
            ([], "https://example.com/article?ref=page"),
            ([("al:web:url", nil), ("al:web:url", "https://example.com/second")], "https://example.com/second"),
            ([("al:web:url", "not a url"), ("al:web:url", "https://example.com/valid")], "https://example.com/valid"),
            ([("al:web", nil), ("al:web:should_fallback", "yes")], "https://example.com/article?ref=page"),
        ] as [([(String, String?)], String)])
    func webURLIsTheFirstWebURLWithContentElseThePage(tags: [(String, String?)], expected: String) {
        let link = AppLinkMetadata(html: metaTags(tags)).appLink(sourceURL: pageURL, platform: .iphone)
        #expect(link.webURL?.absoluteString == expected)
    }

    @Test func ignoresTagsOutsideTheAppLinksNamespace() {
        let html = metaTags([("og:url", "x://1"), ("al:windows:url", "w://1"), ("al", "x"), ("AL:IOS:URL", "i://1")])
        #expect(AppLinkMetadata(html: html).targets(for: .iphone).map { $0.url?.absoluteString } == ["i://1"])
    }

    @Test func readsTheExamplePage() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Examples/article.html")
        let link = try AppLinkMetadata(html: String(contentsOf: path, encoding: .utf8)).appLink(
            sourceURL: pageURL, platform: .iphone)
        #expect(link.targets.map(\.appName) == ["Example News for iPhone", "Example News"])
        #expect(link.webURL?.absoluteString == "https://example.com/article?ref=applinks&id=42")
    }
}
