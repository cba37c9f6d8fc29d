import AppLinks
import Foundation
import MeasurementEvents
import Testing

struct AppLinkReturnToRefererTests {
    static let inbound = AppLinkURL(
        parsing: appLinkURL(
            #"{"target_url":"https://example.com/a?ref=feed","referer_app_link":{"url":"news://story/7?x=1","app_name":"News"}}"#
        ))

    @Test func buildsTheBackLinkAndItsText() throws {
        let back = try #require(AppLinkReturnToReferer(inbound: Self.inbound))
        #expect(back.text == "Touch to return to News")
        #expect(back.appLink.targets.map { $0.url?.absoluteString } == ["news://story/7?x=1"])
        #expect(back.appLink.webURL == nil)
    }

    @Test(arguments: [
        appLinkURL(#"{"target_url":"https://example.com/a"}"#),
        appLinkURL(#"{"referer_app_link":{"url":"not a url","app_name":"News"}}"#),
        appLinkURL(#"{"referer_app_link":{"url":"news://x","app_name":3}}"#),
        "news://plain",
    ])
    func hasNoBackLinkWithoutAUsableReferer(url: String) {
        #expect(AppLinkReturnToReferer(inbound: AppLinkURL(parsing: url)) == nil)
    }

    @Test func returningPostsRefBackOutWithTheRefererAndTheInboundRef() throws {
        let back = try #require(AppLinkReturnToReferer(inbound: Self.inbound))
        let recorder = EventRecorder()
        var opened: URL?
        let result = back.navigate(
            canOpen: { $0.scheme == "news" },
            open: {
                opened = $0
                return true
            }, on: recorder.bus)
        let url = try #require(opened)
        #expect(result.url == url)
        let data = AppLinkURL(parsing: url.absoluteString).appLinkData
        #expect(data?["target_url"] == "news://story/7?x=1")
        #expect(data?["version"] == "1.0")
        #expect(data?["extras"] == .object([:]))
        #expect(data?["user_agent"] != nil)
        let events = recorder.events()
        #expect(events.map(\.name) == ["al_ref_back_out"])
        #expect(
            events.first?.fields == [
                "outputURL": url.absoluteString, "outputURLScheme": "news", "sourceURL": "news://story/7?x=1",
                "sourceURLHost": "story", "success": "1", "type": "app", "version": "1.0",
                "refererAppName": "News", "ref": "feed",
            ])
    }

    @Test func aRefererThatIsNotInstalledFailsWithAnEvent() throws {
        let back = try #require(AppLinkReturnToReferer(inbound: Self.inbound))
        let recorder = EventRecorder()
        back.navigate(canOpen: { _ in false }, open: { _ in true }, on: recorder.bus)
        let fields = recorder.events().first?.fields ?? [:]
        #expect(fields["type"] == "fail")
        #expect(fields["error"] == "no_installed_target")
        #expect(fields["refererAppName"] == "News")
    }
}
