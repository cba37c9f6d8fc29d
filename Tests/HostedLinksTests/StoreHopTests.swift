import AppLinks
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import HostedLinks

/// The install path's side of the hosted page (docs/install.md): click tokens, the store buttons through the hop, the
/// pasteboard URL and the one inline script allowed by its hash, the hop's store URLs and the tap's fields.
@Suite struct StoreHopTests {
    static let invite = #"""
        {"slug": "invite", "title": "Couchin'", "pass_query": ["referral"],
         "ios": [{"url": "couchin://invite", "app_store_id": "123", "app_name": "Couchin'"}],
         "ipad": [{"url": "couchin-pad://invite", "app_store_id": "456"}],
         "android": [{"url": "couchin://invite", "package": "com.example.couchin"}],
         "web": {"url": "https://couchin.example/invite"}}
        """#
    static func link(_ json: String = invite) throws -> HostedLink { try HostedLink(json: JSONValue.parse(json)) }
    static let token = "3q2-7w_AAAAAAAAAAAAAAQ"

    @Test func aClickTokenIsSixteenRandomBytesInBase64URLWithoutPadding() throws {
        let tokens = (0..<2_000).map { _ in ClickToken.mint(at: 1_763_683_200_000) }
        #expect(Set(tokens).count == tokens.count)
        for token in tokens.prefix(50) {
            #expect(ClickToken.isToken(token), "\(token)")
            var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += "=="
            #expect(Data(base64Encoded: base64)?.count == 16)
        }
        // The encoder against Foundation's, every length and the characters that differ from plain base64.
        var bytes = SeededGenerator(seed: 3)
        for length in 0...20 {
            let input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &bytes) }
            var expected = Data(input).base64EncodedString()
            expected = expected.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(ClickToken.base64URL(input) == expected.replacingOccurrences(of: "=", with: ""), "\(input)")
        }
        #expect(ClickToken.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
        var seeded = SeededGenerator(seed: 7)
        var again = SeededGenerator(seed: 7)
        #expect(ClickToken.mint(at: 5, using: &seeded) == ClickToken.mint(at: 5, using: &again))
        // The time first, big-endian in 6 bytes; the other 10 random.
        for time: Int64 in [0, 1, 255, 256, 1_763_683_200_000, 281_474_976_710_655] {
            let token = ClickToken.mint(at: time)
            var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += "=="
            let bytes = try #require(Data(base64Encoded: base64))
            #expect(bytes.prefix(6).reduce(Int64(0)) { $0 << 8 | Int64($1) } == time, "\(token)")
            #expect(ClickToken.isToken(token) && token != ClickToken.mint(at: time))
        }
    }

    @Test(arguments: [
        ("3q2-7w_AAAAAAAAAAAAAAQ", true), ("AAAAAAAAAAAAAAAAAAAAAw", true), ("AAAAAAAAAAAAAAAAAAAAAB", false),
        ("3q2-7w_AAAAAAAAAAAAAA", false), ("3q2-7w_AAAAAAAAAAAAAAQA", false), ("3q2+7w/AAAAAAAAAAAAAAQ", false),
        ("3q2-7w_AAAAAAAAAAAAA%3D", false), ("", false),
    ])
    func onlyTheCanonicalFormOfSixteenBytesIsAToken(text: String, isToken: Bool) {
        #expect(ClickToken.isToken(text) == isToken)
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (String(repeating: "x", count: 55), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
        (String(repeating: "x", count: 56), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
        (String(repeating: "a", count: 1_000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func sha256OfTheKeyFingerprintsMatchesSha256sum(message: String, expected: String) {
        let digest = SHA256.digest(Array(message.utf8))
        #expect(digest.map { String(format: "%02x", $0) }.joined() == expected)
    }

    @Test func sha256MatchesTheStandardsVectors() {
        func hex(_ text: String) -> String {
            SHA256.digest(Array(text.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hex(String(repeating: "a", count: 1_000))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func theStoreButtonsCarryTheClickAndThePassedValuesAndTheAppStoreButtonItsPasteboardURL() throws {
        let page = HostedLinkPage(
            link: try Self.link(), publicURL: "https://go.example", query: [("ref", "mail"), ("referral", "4 2")])
        let html = page.html(platform: .ios, click: Self.token)
        let tail = "alstats_click=\(Self.token)&amp;referral=4%202&amp;ref=mail"
        #expect(html.contains(#"href="/l/invite/store/ios?\#(tail)" data-alstats-copy="#))
        #expect(html.contains(#"data-alstats-copy="https://go.example/l/invite?alstats_click=\#(Self.token)""#))
        #expect(html.contains(#"href="/l/invite/store/android?\#(tail)">"#))
        #expect(html.components(separatedBy: "data-alstats-copy=").count == 3, "both App Store buttons, only they")
        let crawlers = page.html(platform: .ios)
        #expect(crawlers.contains(#"href="/l/invite/store/ios?referral=4%202&amp;ref=mail">"#))
        #expect(!crawlers.contains("alstats_click") && !crawlers.contains("data-alstats-copy="))
        #expect(HostedLinkPageTests.head(html) == HostedLinkPageTests.head(crawlers), "one head for every visitor")
        #expect(html.contains("<script>\(HostedLinkPage.script)</script>"))
        #expect(html.contains("script-src \(HostedLinkPage.scriptHash);"))
    }

    /// Python reads the page's pasteboard URLs, and checks that its one script is the one its policy allows by hash;
    /// a script changed by one byte is refused.
    @Test(.enabled(if: PythonPageReaderTests.python != nil || BuiltAlstats.isCI, "needs python3"))
    func pythonFindsTheCopyURLAndTheScriptAllowedByItsHashOnly() throws {
        let python = try #require(PythonPageReaderTests.python)
        let html = HostedLinkPage(link: try Self.link(), publicURL: "https://go.example", query: [])
            .html(platform: .android, click: Self.token)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("store-hop-\(UUID()).html")
        defer { try? FileManager.default.removeItem(at: file) }
        try html.write(to: file, atomically: true, encoding: .utf8)
        let read = try ProcessRunner.run(python, [PythonPageReaderTests.script, file.path, "https://go.example"])
        #expect(read.status == 0, "\(read.errors)")
        let copies = try JSONValue.parse(read.output)["copies"]
        let copy = JSONValue.string("https://go.example/l/invite?alstats_click=\(Self.token)")
        #expect(copies == .array([copy, copy]), "the iOS and the iPad App Store buttons")
        let tampered = html.replacingOccurrences(of: "setTimeout(go,1000)", with: "setTimeout(go,1001)")
        try tampered.write(to: file, atomically: true, encoding: .utf8)
        let refused = try ProcessRunner.run(python, [PythonPageReaderTests.script, file.path, "https://go.example"])
        #expect(refused.status == 1 && refused.errors.contains("the policy does not allow"), "\(refused.errors)")
    }

    @Test func theHopLeadsToTheStoreWithTheClickInThePlayReferrerOnly() throws {
        let link = try Self.link()
        let play = try #require(LinkStoreHop.storeURL(link: link, platform: .android, click: Self.token))
        #expect(
            play == "https://play.google.com/store/apps/details?id=com.example.couchin&referrer=alstats_click%3D"
                + Self.token + "%26utm_source%3Dalstats%26utm_medium%3Dlink%26utm_campaign%3Dinvite")
        // Google Play hands the referrer, decoded, to the installed app, which takes the token from it.
        let referrer = try #require(URLComponents(string: play)?.queryItems?.first { $0.name == "referrer" }?.value)
        #expect(DeferredAppLink.clickToken(installReferrer: referrer) == Self.token)
        #expect(
            LinkStoreHop.storeURL(link: link, platform: .android, click: nil)
                == "https://play.google.com/store/apps/details?id=com.example.couchin&referrer="
                + "utm_source%3Dalstats%26utm_medium%3Dlink%26utm_campaign%3Dinvite")
        #expect(
            LinkStoreHop.storeURL(link: link, platform: .ios, click: Self.token) == "https://apps.apple.com/app/id123")
        let webOnly = try Self.link(#"{"slug": "w", "ios": [{"url": "w://x"}], "web": {"url": "https://w.example"}}"#)
        #expect(LinkStoreHop.storeURL(link: webOnly, platform: .ios, click: nil) == nil)
        #expect(LinkStoreHop.storeURL(link: webOnly, platform: .android, click: nil) == nil)
        #expect(!LinkStoreHop.hasStore(webOnly) && LinkStoreHop.hasStore(link))
    }

    @Test func aTapRecordsTheStoreTheClickAndThePassedValuesAndNoAddress() throws {
        var tap = LinkHitRequest(
            method: "GET", slug: "invite", status: 302,
            query: [("alstats_click", Self.token), ("referral", "42"), ("ref", "mail"), ("other", "x")],
            headers: [("User-Agent", "Mozilla/5.0 (Linux; Android 14)"), ("Referer", "https://go.example/l/invite")],
            peerAddress: "203.0.113.9")
        tap.click = Self.token
        let hasher = VisitorHasher(now: { Date(timeIntervalSince1970: 1_763_683_200) }, randomKey: { (1, 2) })
        let fields = tap.storeTapFields(link: try Self.link(), platform: .android, hasher: hasher)
        #expect(Set(fields.keys) == ["slug", "platform", "click", "ref", "query/referral", "crawler", "visitor"])
        #expect(fields["platform"] == "android" && fields["click"] == Self.token && fields["crawler"] == "0")
        #expect(fields["ref"] == "mail" && fields["query/referral"] == "42")
        #expect(!fields.values.contains { $0.contains("203.0.113.9") || $0.contains("Android") })
    }
}
