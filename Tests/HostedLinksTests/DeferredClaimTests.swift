import AppLinks
import Foundation
import MeasurementEvents
import Testing

@testable import HostedLinks

/// What the collector reads of a claim's body and answers to a successful claim (docs/install.md): the token from
/// `click`, `referrer` or `pasteboard` only, the app URL the page would have opened, and the install event's fields.
@Suite struct DeferredClaimTests {
    static let token = StoreHopTests.token
    static let base = "https://go.example.com"

    static func claim(_ json: String) throws(DeferredClaimRequest.Problem) -> DeferredClaimRequest {
        guard let value = try? JSONValue.parse(json) else { preconditionFailure(json) }
        return try DeferredClaimRequest(json: value, publicURL: base)
    }

    @Test(
        arguments: [
            (#"{"click": "T", "install": "i-1", "platform": "android"}"#, "T"),
            (
                #"{"referrer": "alstats_click=\#(token)&utm_source=alstats", "install": "i", "platform": "android"}"#,
                token
            ),
            (#"{"referrer": "utm_source=google-play&utm_medium=organic", "install": "i", "platform": "android"}"#, nil),
            (
                #"{"pasteboard": " https://go.example.com/l/invite?alstats_click=\#(token)\n", "install": "i", "platform": "ios"}"#,
                token
            ),
            (
                #"{"pasteboard": "https://GO.example.com/l/invite?ref=x&alstats_click=\#(token)", "install": "i", "platform": "ios"}"#,
                token
            ),
            (
                #"{"pasteboard": "https://evil.example/l/invite?alstats_click=\#(token)", "install": "i", "platform": "ios"}"#,
                nil
            ),
            (
                #"{"pasteboard": "https://go.example.com/elsewhere?alstats_click=\#(token)", "install": "i", "platform": "ios"}"#,
                nil
            ),
            (#"{"pasteboard": "my shopping list", "install": "i", "platform": "ios"}"#, nil),
            (#"{"install": "i", "platform": "ios"}"#, nil),
        ] as [(String, String?)])
    func theTokenIsTakenFromClickReferrerOrAPasteboardURLOfThePublicURLOnly(body: String, click: String?) throws {
        #expect(try Self.claim(body).click == click)
    }

    @Test(arguments: [
        ("[1, 2]", "bad_json"), (#"{"install": 7, "platform": "ios"}"#, "bad_field"),
        (#"{"click": ["x"], "install": "i", "platform": "ios"}"#, "bad_field"),
        (#"{"click": "x", "platform": "ios"}"#, "missing_install"),
        (#"{"install": "", "platform": "ios"}"#, "bad_install"),
        (#"{"install": "a b", "platform": "ios"}"#, "bad_install"),
        (#"{"install": "i"}"#, "bad_platform"), (#"{"install": "i", "platform": "windows"}"#, "bad_platform"),
    ])
    func aBodyThatIsNotAClaimIsRefusedWithItsCode(body: String, code: String) {
        #expect(throws: DeferredClaimRequest.Problem.self) { try Self.claim(body) }
        do {
            _ = try Self.claim(body)
        } catch {
            #expect(error.code == code)
        }
    }

    @Test func theAnswerOpensTheFirstAppTargetWithThePassedValuesAndAnAppLinksTargetAtTheLink() throws {
        let link = try StoreHopTests.link()
        let answer = DeferredLinkAnswer(
            slug: "invite", query: "referral=4%202&ref=mail", clickedAt: 1_763_683_200_250,
            claimedAt: 1_763_683_260_250, platform: .android)
        let json = answer.json(link: link, publicURL: Self.base)
        #expect(json["slug"] == "invite" && json["ref"] == "mail" && json["delay_ms"] == .int(60_000))
        #expect(json["query"] == ["referral": "4 2"])
        #expect(json["clicked_at"] == "2025-11-21T00:00:00.250Z")
        let url = try #require(json["url"]?.stringValue)
        #expect(url.hasPrefix("couchin://invite?referral=4%202&ref=mail&al_applink_data="))
        // The app reads it as an App Link whose target is the link's canonical URL: the link's arrivals count it.
        let opened = AppLinkURL(parsing: url)
        #expect(opened.isAppLink && opened.ref == "mail")
        #expect(opened.targetURL == "https://go.example.com/l/invite?referral=4%202&ref=mail")
        #expect(opened.appLinkData?["version"] == "1.0" && opened.appLinkData?["referer_app_link"] == nil)
        // The app made from the answer: the same URL, and the al_nav_in of a deferred open.
        let deferred = try DeferredAppLink(answer: json)
        #expect(deferred.url == url && deferred.ref == "mail" && deferred.query == ["referral": "4 2"])
        #expect(deferred.clickedAt == 1_763_683_200_250 && deferred.delayMilliseconds == 60_000)
        let event = try #require(deferred.event())
        #expect(event.name == EventName.navIn && event.fields[FieldName.deferred] == "1")
        #expect(event.fields[FieldName.targetURL] == "https://go.example.com/l/invite?referral=4%202&ref=mail")

        #expect(
            answer.installFields == [
                "slug": "invite", "platform": "android", "ref": "mail", "query/referral": "4 2", "delay_ms": "60000",
            ])
        var ios = answer
        ios.platform = .ios
        #expect(ios.appURL(link: link, publicURL: Self.base)?.hasPrefix("couchin://invite?referral=") == true)
        let webOnly = try StoreHopTests.link(#"{"slug": "invite", "web": {"url": "https://w.example"}}"#)
        #expect(answer.json(link: webOnly, publicURL: Self.base)["url"] == .null)
        #expect(answer.json(link: nil, publicURL: Self.base)["url"] == .null, "a link deleted since the click")
    }
}
