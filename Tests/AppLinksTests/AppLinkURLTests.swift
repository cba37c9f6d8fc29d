import AppLinks
import MeasurementEvents
import Testing

/// `example://p?al_applink_data=<json, strictly encoded><suffix>`
func appLinkURL(_ json: String, suffix: String = "") -> String {
    "example://p?al_applink_data=" + encoded(json) + suffix
}

struct AppLinkURLTests {
    // MARK: al_applink_data acceptance

    @Test(arguments: [
        ("example://p?al_applink_data=", "malformed_json"),
        ("example://p?al_applink_data=nope", "malformed_json"),
        (appLinkURL(#"{"target_url":"#), "malformed_json"),
        (appLinkURL(#"{"a":1}}"#), "malformed_json"),
        (appLinkURL("[1,2]"), "not_an_object"),
        (appLinkURL(#""text""#), "not_an_object"),
        (appLinkURL("null"), "not_an_object"),
        (appLinkURL(#"{"version":"2.0"}"#), "unsupported_version"),
        (appLinkURL(#"{"version":1.0}"#), "unsupported_version"),
        (appLinkURL(#"{"version":null}"#), "unsupported_version"),
        (appLinkURL(#"{"version":""}"#), "unsupported_version"),
        ("example://p?al_applink_data=%7B%zz", "bad_escape"),
        ("example://p?al_applink_data=%7B%22a%22%3A%22%FF%22%7D", "bad_escape"),
    ])
    func rejectsMalformedAppLinkDataAndCountsIt(url: String, code: String) {
        let link = AppLinkURL(parsing: url)
        #expect(!link.isAppLink)
        #expect(link.appLinkData == nil)
        #expect(link.targetURL == url)
        #expect(link.rejection?.code == code)

        let recorder = EventRecorder()
        link.recordOpen(sourceApplication: "com.example.sender", on: recorder.bus)
        let events = recorder.events()
        #expect(events.map(\.name) == [AppLinkEventName.linkRejected])
        #expect(events.first?.fields == ["error": code, "inputURL": url])
    }

    @Test(arguments: [#"{}"#, #"{"version":"1.0"}"#, #"{"target_url":"https://example.com/a","version":"1.0"}"#])
    func acceptsObjectsWithVersionOneOrNone(json: String) {
        let link = AppLinkURL(parsing: appLinkURL(json))
        #expect(link.isAppLink)
        #expect(link.rejection == nil)
        #expect(link.appLinkData != nil)
    }

    @Test func plainDeepLinkPostsNothing() {
        let link = AppLinkURL(parsing: "example://item/7?ref=mail")
        #expect(!link.isAppLink)
        #expect(link.ref == "mail")
        #expect(link.event() == nil)
        let recorder = EventRecorder()
        link.recordOpen(on: recorder.bus)
        #expect(recorder.events().isEmpty)
    }

    // MARK: target_url, extras, referer

    @Test(
        arguments: [
            (#"{}"#, nil),
            (#"{"target_url":42}"#, nil),
            (#"{"target_url":null}"#, nil),
            (#"{"target_url":""}"#, nil),
            (#"{"target_url":"not a url"}"#, nil),
            (#"{"target_url":"/relative/path"}"#, nil),
            (#"{"target_url":"https://example.com/a b"}"#, nil),
            (#"{"target_url":"https://example.com/a?x=1&y=2"}"#, "https://example.com/a?x=1&y=2"),
            (#"{"target_url":"other-app://item/9"}"#, "other-app://item/9"),
        ] as [(String, String?)])
    func usesTargetURLOnlyWhenItIsAnAbsoluteURLString(json: String, expected: String?) {
        let url = appLinkURL(json, suffix: "&q=input")
        let link = AppLinkURL(parsing: url)
        #expect(link.targetURL == (expected ?? url))
        #expect(
            link.targetQueryParameters
                == (expected == nil ? link.inputQueryParameters : RawURL(expected!).queryParameters))
    }

    @Test func targetQueryParametersComeFromTheTargetURL() {
        let link = AppLinkURL(parsing: appLinkURL(#"{"target_url":"https://example.com/a?x=1+2&y"}"#, suffix: "&q=1"))
        #expect(link.targetQueryParameters == ["x": "1 2", "y": ""])
        #expect(link.inputQueryParameters["q"] == "1")
    }

    @Test(arguments: [
        (#"{"extras":{"fb_app_id":123}}"#, true),
        (#"{"extras":"x"}"#, false),
        (#"{"extras":[1]}"#, false),
        (#"{"extras":null}"#, false),
        (#"{}"#, false),
    ])
    func keepsExtrasOnlyWhenAnObject(json: String, kept: Bool) {
        let link = AppLinkURL(parsing: appLinkURL(json))
        #expect((link.appLinkExtras != nil) == kept)
    }

    @Test(
        arguments: [
            (#"{"referer_app_link":{"url":"fb://back","app_name":"Facebook"}}"#, true, "fb://back", "Facebook"),
            (#"{"referer_app_link":{"url":7,"app_name":"Facebook"}}"#, false, nil, "Facebook"),
            (#"{"referer_app_link":{"url":"fb://back"}}"#, false, "fb://back", nil),
            (#"{"referer_app_link":{"url":"fb://back","app_name":{"x":1}}}"#, false, "fb://back", nil),
            (#"{"referer_app_link":"fb://back"}"#, false, nil, nil),
            (#"{"referer_app_link":[{"url":"fb://back","app_name":"Facebook"}]}"#, false, nil, nil),
        ] as [(String, Bool, String?, String?)])
    func refererExistsOnlyWithStringURLAndAppName(json: String, exists: Bool, url: String?, appName: String?) {
        let link = AppLinkURL(parsing: appLinkURL(json))
        #expect(link.appLinkReferer == (exists ? AppLinkReferer(url: "fb://back", appName: "Facebook") : nil))
        let fields = link.event()?.fields ?? [:]
        #expect(fields["refererURL"] == url)
        #expect(fields["refererAppName"] == appName)
    }

    // MARK: ref precedence

    @Test(
        arguments: [
            (appLinkURL(#"{"ref":"data","target_url":"https://e.com/a?ref=target"}"#, suffix: "&ref=input"), "data"),
            (appLinkURL(#"{"ref":"","target_url":"https://e.com/a?ref=target"}"#, suffix: "&ref=input"), "target"),
            (appLinkURL(#"{"ref":5,"target_url":"https://e.com/a?ref=target"}"#, suffix: "&ref=input"), "target"),
            (appLinkURL(#"{"target_url":"https://e.com/a"}"#, suffix: "&ref=input"), "input"),
            (appLinkURL(#"{"target_url":"https://e.com/a?fb_ref=x,y"}"#, suffix: "&ref=input"), "x"),
            (appLinkURL(#"{}"#), nil),
            ("example://p?ref=plain", "plain"),
            ("example://p?ref=", nil),
            ("example://p?fb_ref=first,second", "first"),
            ("example://p", nil),
        ] as [(String, String?)])
    func refFollowsTheSpecPrecedence(url: String, expected: String?) {
        #expect(AppLinkURL(parsing: url).ref == expected)
    }

    // MARK: legacy fb<APPID>://authorize links

    @Test(
        arguments: [
            (
                "fb123://authorize#expires_in=0&access_token=SECRET&target_url=https%3A%2F%2Fexample.com%2Fa%3Fref%3Dfeed",
                "https://example.com/a?ref=feed", "feed"
            ),
            (
                "fb123://authorize#target_url=https://example.com/a?x=1=2&access_token=t",
                "https://example.com/a?x=1=2", nil
            ),
            (
                "fb123://authorize?target_url=https://query.example&a=1#target_url=https://fragment.example",
                "https://fragment.example", nil
            ),
            ("fb123://authorize?target_url=https://query.example&ref=q", "https://query.example", "q"),
            ("FB123://Authorize#target_url=https%3A%2F%2Fexample.com", "https://example.com", nil),
            ("fb123://authorize#target_url=https%3A%2F%2Fexample.com&fb_ref=news,top", "https://example.com", "news"),
        ] as [(String, String, String?)])
    func legacyAuthorizeLinksAreAppLinks(url: String, target: String, ref: String?) {
        let link = AppLinkURL(parsing: url)
        #expect(link.isAppLink)
        #expect(link.isLegacyLink)
        #expect(link.targetURL == target)
        #expect(link.ref == ref)
        #expect(link.appLinkData == nil)
        let event = link.event()
        #expect(event?.name == "al_nav_in")
        #expect(event?.fields["version"] == "1.0")
        #expect(event?.fields["targetURL"] == target)
    }

    @Test(arguments: [
        "fb://authorize#target_url=https%3A%2F%2Fexample.com",
        "fbabc://authorize#target_url=https%3A%2F%2Fexample.com",
        "fb123://other#target_url=https%3A%2F%2Fexample.com",
        "fb123://authorize#access_token=SECRET&expires_in=0",
        "example://authorize#target_url=https%3A%2F%2Fexample.com",
    ])
    func otherLinksAreNotLegacyAppLinks(url: String) {
        let link = AppLinkURL(parsing: url)
        #expect(!link.isAppLink)
        #expect(link.targetURL == url)
        #expect(link.event() == nil)
    }

    @Test func legacyFragmentParametersMergeOverQueryParameters() {
        let link = AppLinkURL(parsing: "fb1://authorize?a=query&b=query#a=fragment&target_url=x")
        #expect(link.inputQueryParameters == ["a": "fragment", "b": "query", "target_url": "x"])
        #expect(link.targetURL == "fb1://authorize?a=query&b=query#a=fragment&target_url=x")
        #expect(link.isAppLink)
    }

    // MARK: al_nav_in

    @Test func opensAnAppLinkWithTheExactFieldsOfEventsMD() {
        let json = #"""
            {"target_url":"https://example.com/p?ref=feed&x=a+b","version":"1.0","extras":{"fb_app_id":1},
             "referer_app_link":{"url":"fb://back","app_name":"Facebook"}}
            """#
        let url = appLinkURL(json)
        let recorder = EventRecorder()
        AppLinkURL(parsing: url).recordOpen(sourceApplication: "com.facebook.Facebook", on: recorder.bus)
        let events = recorder.events()
        #expect(events.map(\.name) == ["al_nav_in"])
        #expect(
            events.first?.fields == [
                "inputURL": url,
                "inputURLScheme": "example",
                "targetURL": "https://example.com/p?ref=feed&x=a+b",
                "refererURL": "fb://back",
                "refererAppName": "Facebook",
                "sourceApplication": "com.facebook.Facebook",
                "version": "1.0",
                "ref": "feed",
            ])
    }

    @Test func leavesOutFieldsItDoesNotKnow() {
        let fields = AppLinkURL(parsing: appLinkURL("{}")).event()?.fields
        #expect(fields?.keys.sorted() == ["inputURL", "inputURLScheme", "targetURL", "version"])
    }
}
