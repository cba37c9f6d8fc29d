import AppLinks
import Foundation
import MeasurementEvents
import Testing

let sampleLink = AppLink(
    sourceURL: URL(string: "https://example.com/article?ref=page")!,
    targets: [
        AppLinkTarget(url: nil, appName: "No URL"),
        AppLinkTarget(url: URL(string: "first-app://a/1"), appName: "First"),
        AppLinkTarget(url: URL(string: "Second-App://a/1?x=1#top"), appName: "Second"),
    ],
    webURL: URL(string: "https://example.com/web"))

struct AppLinkNavigationTests {
    @Test(
        arguments: [
            (["first-app", "second-app"], NavigationType.app, "First"),
            (["SECOND-APP"], NavigationType.app, "Second"),
            ([], NavigationType.web, nil),
        ] as [([String], NavigationType, String?)])
    func choosesTheFirstInstalledTargetElseTheWeb(installed: [String], type: NavigationType, appName: String?) {
        let result = AppLinkNavigation(appLink: sampleLink).plan(
            canOpen: AppLinkNavigation.installed(schemes: installed))
        #expect(result.type == type)
        #expect(result.target?.appName == appName)
        let parsed = AppLinkURL(parsing: result.url?.absoluteString ?? "")
        #expect(parsed.isAppLink)
        #expect(parsed.appLinkData?["target_url"] == "https://example.com/article?ref=page")
    }

    @Test func appendsDataBeforeTheFragmentAndAfterTheQuery() {
        let result = AppLinkNavigation(appLink: sampleLink).plan(
            canOpen: AppLinkNavigation.installed(schemes: ["second-app"]))
        let text = result.url?.absoluteString ?? ""
        #expect(text.hasPrefix("Second-App://a/1?x=1&al_applink_data=%7B%22target_url%22%3A"))
        #expect(text.hasSuffix("#top"))
        #expect(AppLinkURL(parsing: text).inputQueryParameters["x"] == "1")
    }

    @Test func writesTheCallerDataFirstThenTheDefaults() throws {
        let navigation = AppLinkNavigation(
            appLink: sampleLink, extras: ["fb_app_id": 42], appLinkData: ["ref": "feed", "version": "1.0"],
            referer: AppLinkReferer(url: "news://back", appName: "News"))
        let data = try navigation.payloadJSON().get()
        #expect(data.keys == ["ref", "version", "target_url", "user_agent", "extras", "referer_app_link"])
        #expect(data["referer_app_link"] == ["app_name": "News", "url": "news://back"])
        #expect(data["extras"] == ["fb_app_id": 42])
        #expect(data["user_agent"] == .string(AppLinkNavigation.defaultUserAgent))
    }

    @Test(arguments: ["a&b=c+d#e", "100% & more", "x=1&y=2", "+++", "#hash", "😀 é", "%41"])
    func payloadValuesSurviveNavigateThenInboundParse(value: String) {
        let navigation = AppLinkNavigation(
            appLink: sampleLink, extras: ["note": .string(value)], appLinkData: ["ref": .string(value)],
            referer: AppLinkReferer(url: "news://back?u=" + QueryParameters.encode(value), appName: value))
        let result = navigation.plan(canOpen: AppLinkNavigation.installed(schemes: ["first-app"]))
        let inbound = AppLinkURL(parsing: result.url?.absoluteString ?? "")
        #expect(inbound.isAppLink)
        #expect(inbound.ref == value)
        #expect(inbound.appLinkExtras?["note"] == .string(value))
        #expect(inbound.appLinkReferer?.appName == value)
        #expect(inbound.targetURL == "https://example.com/article?ref=page")
        #expect(result.url.map { RawURL($0.absoluteString).query?.split(separator: "&").count } == 1)
    }

    @Test func postsAppNavigationWithTheFieldsOfEventsMD() {
        let recorder = EventRecorder()
        var opened: [URL] = []
        let result = AppLinkNavigation(appLink: sampleLink, appLinkData: ["ref": "feed"]).navigate(
            canOpen: AppLinkNavigation.installed(schemes: ["first-app"]),
            open: {
                opened.append($0)
                return true
            },
            on: recorder.bus)
        #expect(opened == [result.url!])
        let events = recorder.events()
        #expect(events.map(\.name) == ["al_nav_out"])
        #expect(
            events.first?.fields == [
                "outputURL": result.url!.absoluteString, "outputURLScheme": "first-app",
                "sourceURL": "https://example.com/article?ref=page", "sourceURLHost": "example.com",
                "success": "1", "type": "app", "version": "1.0", "ref": "feed",
            ])
    }

    @Test func webFallbackIsASuccessOfTypeWeb() {
        let recorder = EventRecorder()
        AppLinkNavigation(appLink: sampleLink).navigate(canOpen: { _ in false }, open: { _ in true }, on: recorder.bus)
        let fields = recorder.events().first?.fields ?? [:]
        #expect(fields["type"] == "web")
        #expect(fields["success"] == "1")
        #expect(fields["ref"] == "page")
        #expect(fields["outputURL"]?.hasPrefix("https://example.com/web?al_applink_data=") == true)
    }

    @Test(arguments: [
        (
            AppLink(sourceURL: sampleLink.sourceURL, targets: sampleLink.targets, webURL: nil), JSONValue.object([:]),
            "no_installed_target"
        ),
        (
            AppLink(sourceURL: sampleLink.sourceURL, targets: [AppLinkTarget(url: nil)], webURL: nil),
            JSONValue.object([:]), "no_target"
        ),
        (sampleLink, JSONValue.string("not an object"), "invalid_extras"),
        (sampleLink, JSONValue.array([1]), "invalid_extras"),
        (sampleLink, JSONValue.object(["n": .double(.nan)]), "invalid_extras"),
        (sampleLink, JSONValue.object(["n": .array([.double(.infinity)])]), "invalid_extras"),
    ])
    func failuresPostAFailEventWithAnError(link: AppLink, extras: JSONValue, error: String) {
        let recorder = EventRecorder()
        var opened = 0
        let result = AppLinkNavigation(appLink: link, extras: extras).navigate(
            canOpen: { _ in false },
            open: { _ in
                opened += 1
                return true
            }, on: recorder.bus)
        #expect(result.type == .fail)
        #expect(result.url == nil)
        #expect(opened == 0)
        let event = recorder.events().first
        #expect(event?.name == "al_nav_out")
        #expect(event?.fields["success"] == "0")
        #expect(event?.fields["type"] == "fail")
        #expect(event?.fields["error"] == error)
        #expect(event?.fields["outputURL"] == nil)
    }

    @Test func anOpenThatFailsIsAFailedAttempt() {
        let recorder = EventRecorder()
        let result = AppLinkNavigation(appLink: sampleLink).navigate(
            canOpen: { _ in true }, open: { _ in false }, on: recorder.bus)
        #expect(result.error == "open_failed")
        #expect(recorder.events().first?.fields["error"] == "open_failed")
    }

    @Test func dryRunOpensNothingAndPostsNothing() {
        let recorder = EventRecorder()
        let result = AppLinkNavigation(appLink: sampleLink).plan(canOpen: { _ in true })
        #expect(result.type == .app)
        #expect(result.event.name == "al_nav_out")
        #expect(recorder.events().isEmpty)
    }

    @Test func aResolutionFailureIsAFailedNavigationWithAnEvent() async {
        struct FailingResolver: AppLinkResolving {
            func appLink(for url: URL) async throws(AppLinkError) -> AppLink { throw .httpStatus(404) }
        }
        let recorder = EventRecorder()
        let page = URL(string: "https://example.com/missing?ref=mail")!
        let result = await AppLinkNavigation.navigate(
            to: page, resolver: FailingResolver(), canOpen: { _ in true }, open: { _ in true }, on: recorder.bus)
        #expect(result.type == .fail)
        #expect(
            recorder.events().first?.fields == [
                "sourceURL": page.absoluteString, "sourceURLHost": "example.com", "success": "0", "type": "fail",
                "version": "1.0", "error": "http_status_404", "ref": "mail",
            ])
    }

    @Test func resolvesThenNavigates() async {
        let recorder = EventRecorder()
        let html = metaTags([("al:ios:url", "example-ios://article/1")])
        let result = await AppLinkNavigation.navigate(
            to: pageURL, resolver: HTMLAppLinkResolver(html: html), canOpen: { _ in true }, open: { _ in true },
            on: recorder.bus)
        #expect(result.url?.absoluteString.hasPrefix("example-ios://article/1?al_applink_data=") == true)
        #expect(recorder.events().first?.fields["type"] == "app")
    }
}
