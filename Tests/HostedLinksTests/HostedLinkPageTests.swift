import AppLinks
import Foundation
import MeasurementEvents
import Testing

@testable import HostedLinks

@Suite struct HostedLinkPageTests {
    static func link(_ json: String = LinkValidationTests.couchin) throws -> HostedLink {
        try HostedLink(json: JSONValue.parse(json))
    }

    @Test func ourResolverReadsTheTargetsInOrderWithThePassedParameters() throws {
        let link = try Self.link(
            #"""
            {"slug":"invite","ios":[{"url":"one://a?x=1#frag","app_store_id":"1","app_name":"One"},
                                    {"url":"two://b","app_store_id":"2","app_name":"Two"}],
             "iphone":[{"url":"three://c","app_store_id":"3","app_name":"Three"}],
             "android":[{"package":"com.a","url":"four://d","class":"A","app_name":"Four"}],
             "web":{"url":"https://a.example/p"},"pass_query":["referral"]}
            """#)
        let page = HostedLinkPage(
            link: link, publicURL: "https://go.example/",
            query: [("referral", "ann smith"), ("referral", "bob"), ("secret", "x"), ("ref", "mail/é")])
        let metadata = AppLinkMetadata(html: page.html())
        let urls = metadata.targets(for: .iphone).map { $0.url?.absoluteString }
        #expect(
            urls == [
                "three://c?referral=ann%20smith&ref=mail%2F%C3%A9",
                "one://a?x=1&referral=ann%20smith&ref=mail%2F%C3%A9#frag",
                "two://b?referral=ann%20smith&ref=mail%2F%C3%A9",
            ])
        #expect(metadata.targets(for: .iphone).map(\.appStoreId) == ["3", "1", "2"])
        let android = try #require(metadata.targets(for: .android).first)
        #expect(android.package == "com.a" && android.className == "A" && android.appName == "Four")
        #expect(android.url?.absoluteString == "four://d?referral=ann%20smith&ref=mail%2F%C3%A9")
        let web = metadata.webURL(sourceURL: URL(string: "https://go.example/l/invite")!)
        #expect(web?.absoluteString == "https://a.example/p?referral=ann%20smith&ref=mail%2F%C3%A9")
        #expect(!page.html().contains("secret"))
    }

    @Test func tagsComeGroupByGroupRequiredTagFirstThenWebThenOpenGraph() throws {
        let html = HostedLinkPage(link: try Self.link(), publicURL: "https://go.example", query: []).html()
        let properties = MetaTagParser.metaTags(in: html).map(\.property)
        #expect(
            properties == [
                "al:ios:url", "al:ios:app_store_id", "al:ios:app_name",
                "al:android:package", "al:android:url", "al:android:app_name",
                "al:web:url", "al:web:should_fallback", "og:title", "og:description", "og:image", "og:url",
            ])
        let tags = MetaTagParser.metaTags(in: html)
        #expect(tags.first(where: { $0.property == "og:url" })?.content == "https://go.example/l/invite")
        #expect(tags.first(where: { $0.property == "al:web:should_fallback" })?.content == "true")
        // The store buttons go through the store hop (docs/install.md), which redirects to the store.
        #expect(html.contains(#"href="/l/invite/store/ios""#))
        #expect(html.contains(#"href="/l/invite/store/android""#))
        #expect(html.contains("<h1>Couchin&#39;</h1>"))
    }

    @Test func targetsWithUnevenFieldsAreSeparatedSoFieldsStayWithTheirTarget() throws {
        let link = try Self.link(
            #"{"slug":"a","ios":[{"url":"a://1","app_name":"A"},{"url":"b://2","app_store_id":"2"}]}"#)
        let html = HostedLinkPage(link: link, publicURL: "https://g", query: []).html()
        let targets = AppLinkMetadata(html: html).targets(for: .iphone)
        #expect(targets.map { $0.url?.absoluteString } == ["a://1", "b://2"])
        #expect(targets.map(\.appStoreId) == [nil, "2"] && targets.map(\.appName) == ["A", nil])
        let even = try Self.link(#"{"slug":"a","ios":[{"url":"a://1","app_name":"A"},{"url":"b://2"}]}"#)
        let plain = HostedLinkPage(link: even, publicURL: "https://g", query: []).html()
        #expect(!plain.contains(#"<meta property="al:ios">"#))
        #expect(AppLinkMetadata(html: plain).targets(for: .iphone).map(\.appName) == ["A", nil])
    }

    @Test func shouldFallbackIsFalseOnlyWhenFalse() throws {
        let link = try Self.link(#"{"slug":"a","web":{"url":"https://a.example","should_fallback":false}}"#)
        let metadata = AppLinkMetadata(html: HostedLinkPage(link: link, publicURL: "https://g", query: []).html())
        #expect(metadata.webURL(sourceURL: URL(string: "https://g/l/a")!) == nil)
    }

    @Test func theALVariantHoldsOnlyALTags() throws {
        let html = HostedLinkPage(link: try Self.link(), publicURL: "https://g", query: []).html(alTagsOnly: true)
        let properties = MetaTagParser.metaTags(in: html).map(\.property)
        #expect(!properties.isEmpty && properties.allSatisfy { $0.hasPrefix("al:") })
        #expect(!html.contains("<a ") && !html.contains("og:"))
        #expect(HostedLinkPage.prefersALTagsOnly("og, AL"))
        #expect(!HostedLinkPage.prefersALTagsOnly("all"))
        #expect(!HostedLinkPage.prefersALTagsOnly(nil))
    }

    @Test func hostileValuesNeverBecomeMarkup() throws {
        let hostile = #"\"><script>alert('x')</script>"#
        let link = try Self.link(
            #"""
            {"slug":"a","title":"\#(hostile)","description":"<img src=x onerror=alert(1)>",
             "ios":[{"url":"x://y?q=\#(hostile)","app_store_id":"1\#(hostile)","app_name":"\#(hostile)"}],
             "android":[{"package":"p\#(hostile)"}],"web":{"url":"https://a.example/\#(hostile)"}}
            """#)
        let page = HostedLinkPage(link: link, publicURL: "https://g", query: [("ref", #""><script>x</script>"#)])
        let html = page.html().replacingOccurrences(of: "<script>\(HostedLinkPage.script)</script>", with: "")
        #expect(!html.contains("<script") && !html.contains("<img"), "no script but the page's own")
        let tags = MetaTagParser.metaTags(in: html)
        #expect(tags.first(where: { $0.property == "og:title" })?.content == #""><script>alert('x')</script>"#)
        #expect(
            tags.first(where: { $0.property == "al:ios:url" })?.content?.hasSuffix(
                "ref=%22%3E%3Cscript%3Ex%3C%2Fscript%3E") == true)
    }

    @Test func aRefusedSchemeIsNeverFollowedEvenIfValidationWasBypassed() {
        let link = HostedLink(
            slug: "a", image: "javascript:alert(1)",
            targets: [.ios: [LinkTarget(values: ["url": "JavaScript:alert(1)", "app_store_id": "1"])]],
            web: HostedLink.Web(url: "data:text/html,<script>x</script>"))
        let html = HostedLinkPage(link: link, publicURL: "https://g", query: []).html()
        #expect(!html.lowercased().contains("javascript:") && !html.contains("data:"))
    }

    @Test func theNotFoundPageEscapesTheSlug() {
        let html = HostedLinkPage.notFound(slug: "<b>x</b>")
        #expect(html.contains("&lt;b&gt;x&lt;/b&gt;") && !html.contains("<b>"))
    }

    @Test func aQuoteFollowedByACombiningMarkCannotEndAnAttribute() {
        let escaped = PageText.html("\"\u{301} onmouseover=x '\u{301}\u{7}")
        #expect(escaped == "&quot;\u{301} onmouseover=x &#39;\u{301}\u{FFFD}")
    }

    @Test func parametersGoBeforeTheFragmentWithTheRightSeparator() {
        #expect(PageText.appending([("a", "1")], to: "x://y") == "x://y?a=1")
        #expect(PageText.appending([("a", "1")], to: "x://y?b=2#f?g") == "x://y?b=2&a=1#f?g")
        #expect(PageText.appending([("a", "1")], to: "x://y?") == "x://y?a=1")
        #expect(PageText.appending([("a b", "~-._&=+")], to: "x://y") == "x://y?a%20b=~-._%26%3D%2B")
        #expect(PageText.appending([], to: "x://y#f") == "x://y#f")
    }

    /// The head of a page, up to `</head>`.
    static func head(_ html: String) -> Substring { html[..<(html.range(of: "</head>")?.upperBound ?? html.endIndex)] }

    /// The href of the prominent button, and of every anchor in order.
    static func anchors(_ html: String) -> (primary: String?, all: [String]) {
        var all: [String] = []
        var primary: String?
        for part in html.components(separatedBy: "<a class=\"").dropFirst() {
            guard let hrefStart = part.range(of: "href=\""),
                let hrefEnd = part[hrefStart.upperBound...].firstIndex(of: "\"")
            else { continue }
            let href = String(part[hrefStart.upperBound..<hrefEnd])
            all.append(href)
            if part.hasPrefix("button primary") { primary = href }
        }
        return (primary, all)
    }

    @Test func theVisitorsPlatformComesFirstAndProminentWhileTheHeadIsTheSameForEveryone() throws {
        let link = try Self.link(
            #"""
            {"slug":"invite","title":"Couchin","ios":[{"url":"couchin://i","app_store_id":"1","app_name":"Couchin"}],
             "android":[{"package":"com.couchin","url":"couchin://a","app_name":"Couchin"}],
             "windows_phone":[{"url":"couchin://w","app_name":"Couchin"}],
             "web":{"url":"https://couchin.example/i"}}
            """#)
        let page = HostedLinkPage(link: link, publicURL: "https://go.example", query: [])
        let pages = Dictionary(uniqueKeysWithValues: HitPlatform.allCases.map { ($0, page.html(platform: $0)) })
        for platform in HitPlatform.allCases {
            #expect(Self.head(try #require(pages[platform])) == Self.head(page.html()), "no cloaking: \(platform)")
        }
        let ios = Self.anchors(try #require(pages[.ios]))
        #expect(ios.primary == "couchin://i")
        #expect(ios.all.prefix(3) == ["couchin://i", "/l/invite/store/ios", "https://couchin.example/i"])
        let android = Self.anchors(try #require(pages[.android]))
        #expect(android.primary == "couchin://a")
        #expect(android.all.prefix(3) == ["couchin://a", "/l/invite/store/android", "https://couchin.example/i"])
        #expect(Self.anchors(try #require(pages[.windowsPhone])).primary == "couchin://w")
        let web = Self.anchors(try #require(pages[.web]))
        #expect(web.primary == "https://couchin.example/i")
        // Every platform's buttons are on every page, the visitor's first.
        for platform in HitPlatform.allCases {
            #expect(Set(Self.anchors(try #require(pages[platform])).all) == Set(web.all))
        }
        #expect(pages.values.allSatisfy { $0.contains("<style>") && $0.components(separatedBy: "<script").count == 2 })
    }

    @Test func theImageIsShownOnlyFromThePagesOwnOriginAndTheStyleLoadsNothing() throws {
        let elsewhere = try Self.link(
            #"{"slug":"a","title":"A","image":"https://cdn.example/a.png","web":{"url":"https://a.example"}}"#)
        let own = try Self.link(
            #"{"slug":"a","title":"A","image":"https://go.example/a.png","web":{"url":"https://a.example"}}"#)
        let far = HostedLinkPage(link: elsewhere, publicURL: "https://go.example", query: []).html()
        #expect(
            !far.contains("<img") && far.contains(#"<meta property="og:image" content="https://cdn.example/a.png">"#))
        let near = HostedLinkPage(link: own, publicURL: "https://go.example", query: []).html()
        #expect(near.contains(#"<img class="image" src="https://go.example/a.png" alt="">"#))
        let style = HostedLinkPage.style.lowercased()
        #expect(!style.contains("url(") && !style.contains("@import"))
    }
}
