import Testing

@testable import HostedLinks

@Suite struct HitClassifierTests {
    @Test(arguments: [
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15", HitPlatform.ios),
        ("Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X)", .ios),
        ("Mozilla/5.0 (iPod touch; CPU iPhone OS 12_0 like Mac OS X)", .ios),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120 Mobile", .android),
        ("Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950) like iPhone OS 7_0_3", .windowsPhone),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120", .web),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Safari/605", .web),
        ("", .web),
    ])
    func platformFromUserAgent(agent: String, platform: HitPlatform) {
        #expect(HitClassifier.platform(userAgent: agent) == platform)
    }

    @Test(arguments: [
        ("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "GET", true),
        ("facebookcatalog/1.0", "GET", true),
        ("meta-externalagent/1.1", "GET", true),
        ("Twitterbot/1.0", "GET", true),
        ("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "GET", true),
        ("WhatsApp/2.23.20.0", "GET", true),
        ("TelegramBot (like TwitterBot)", "GET", true),
        ("Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "GET", true),
        ("LinkedInBot/1.0", "GET", true),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "GET", true),
        // Headless Chromium (a screenshot, a link preview service built on it) says so in its User-Agent.
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0", "GET",
            true
        ),
        ("Mozilla/5.0 (compatible; bingbot/2.0)", "GET", true),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)", "HEAD", true),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)", "GET", false),
        // alstats' own tools: any product named alstats-NAME, alone, after others, or in a comment.
        ("alstats-resolve/0.1.0", "GET", true),
        ("alstats-check/0.2.0", "GET", true),
        ("ALSTATS-Navigate/1.0", "GET", true),
        ("Mozilla/5.0 (compatible; alstats-check/0.2.0)", "GET", true),
        ("curl/8.5 alstats-report-bot/1", "GET", true),
        ("alstats/0.1.0", "GET", false),
        ("myalstats-check/1.0", "GET", false),
        ("alstats-", "GET", false),
    ])
    func crawlers(agent: String, method: String, crawler: Bool) {
        #expect(HitClassifier.isCrawler(userAgent: agent, method: method) == crawler)
    }

    @Test func referrerHost() {
        #expect(HitClassifier.referrerHost("https://M.Facebook.com/story?id=1") == "m.facebook.com")
        #expect(HitClassifier.referrerHost("not a url") == nil)
        #expect(HitClassifier.referrerHost(nil) == nil)
    }

    @Test func hitFieldsCarryWhatLinksMdListsAndNoAddress() throws {
        let link = try HostedLinkPageTests.link()
        let request = LinkHitRequest(
            method: "GET", slug: "invite", status: 200,
            query: [("referral", "ann"), ("referral", "bob"), ("ref", "mail"), ("secret", "s")],
            headers: [("user-agent", "Twitterbot/1.0"), ("REFERER", "https://t.co/x")], peerAddress: "203.0.113.7")
        let fields = request.fields(link: link, hasher: VisitorHasher())
        #expect(fields["slug"] == "invite" && fields["status"] == "200" && fields["ref"] == "mail")
        #expect(fields["query/referral"] == "ann" && fields["platform"] == "web" && fields["crawler"] == "1")
        #expect(fields["referrerHost"] == "t.co" && fields["visitor"]?.count == 16)
        #expect(Set(fields.keys).count == 8 && !fields.values.contains { $0.contains("203.0.113") })
        let missing = LinkHitRequest(
            method: "HEAD", slug: "nope", status: 404, query: [], headers: [], peerAddress: "::1")
        let notFound = missing.fields(link: nil, hasher: VisitorHasher())
        #expect(notFound["status"] == "404" && notFound["crawler"] == "1" && notFound["ref"] == nil)
    }
}
