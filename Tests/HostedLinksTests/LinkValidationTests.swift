import MeasurementEvents
import Testing

@testable import HostedLinks

@Suite struct LinkValidationTests {
    static let couchin = """
        {"slug": "invite", "title": "Couchin'", "description": "Sit with friends",
         "image": "https://couchinapp.com/i.jpg",
         "ios": [{"url": "couchinapp://invite_from_fb", "app_store_id": "123456789", "app_name": "Couchin'"}],
         "android": [{"url": "couchinapp://invite_from_fb", "package": "com.mycompany.couchin", "app_name": "Couchin"}],
         "web": {"url": "http://www.couchinapp.com/myapp.html", "should_fallback": true},
         "pass_query": ["referral"]}
        """

    @Test func theSpecExampleRoundTripsThroughItsCanonicalJSON() throws {
        let link = try #require(try HostedLink.links(fromJSON: Self.couchin).first)
        #expect(link.targets[.ios]?.first?.appStoreId == "123456789")
        #expect(link.web == HostedLink.Web(url: "http://www.couchinapp.com/myapp.html", shouldFallback: true))
        let again = try HostedLink(json: JSONValue.parse(link.jsonValue.jsonText()))
        #expect(again == link)
    }

    @Test func shouldFallbackDefaultsToTrue() throws {
        let link = try HostedLink(json: JSONValue.parse(#"{"slug":"a","web":{"url":"https://a.example/"}}"#))
        #expect(link.web?.shouldFallback == true)
    }

    @Test(arguments: [
        (#"{"slug":""}"#, "slug"),
        (#"{"slug":"a/b","web":{"url":"https://a.example"}}"#, "slug"),
        (#"{"slug":"\#(String(repeating: "x", count: 65))","web":{"url":"https://a.example"}}"#, "slug"),
        (#"{"web":{"url":"https://a.example"}}"#, "slug"),
        (#"{"slug":"a"}"#, ""),
        (#"{"slug":"a","web":{"should_fallback":false}}"#, ""),
        (#"{"slug":"a","ios":[{"app_store_id":"1"}]}"#, "ios[0].url"),
        (#"{"slug":"a","android":[{"url":"x://y"}]}"#, "android[0].package"),
        (#"{"slug":"a","windows":[{"app_id":"x"}]}"#, "windows[0].url"),
        (#"{"slug":"a","ios":[{"url":"javascript:alert(1)"}]}"#, "ios[0].url"),
        (#"{"slug":"a","ipad":[{"url":" JavaScript:alert(1)"}]}"#, "ipad[0].url"),
        (#"{"slug":"a","iphone":[{"url":"DATA:text/html,x"}]}"#, "iphone[0].url"),
        (#"{"slug":"a","android":[{"package":"p","url":"vbscript:x"}]}"#, "android[0].url"),
        (#"{"slug":"a","windows_phone":[{"url":"file:///etc/passwd"}]}"#, "windows_phone[0].url"),
        (#"{"slug":"a","ios":[{"url":"relative/path"}]}"#, "ios[0].url"),
        (#"{"slug":"a","web":{"url":"ftp://a.example/"}}"#, "web.url"),
        (#"{"slug":"a","web":{"url":"javascript://a.example/%0aalert(1)"}}"#, "web.url"),
        (#"{"slug":"a","web":{"url":"https://a.example","should_fallback":"no"}}"#, "web.should_fallback"),
        (#"{"slug":"a","web":{"url":"https://a.example"},"image":"javascript:x"}"#, "image"),
        (#"{"slug":"a","web":{"url":"https://a.example"},"pass_query":[1]}"#, "pass_query[0]"),
        (#"{"slug":"a","web":{"url":"https://a.example"},"pass_query":["ok","a\u0000"]}"#, "pass_query[1]"),
        (#"{"slug":"a","web":{"url":"https://a.example"},"title":3}"#, "title"),
        (#"{"slug":"a","web":{"url":"https://a.example"},"colour":"red"}"#, "colour"),
        (#"{"slug":"a","ios":[{"url":"x://y","package":"p"}]}"#, "ios[0].package"),
        (#"{"slug":"a","ios":{"url":"x://y"}}"#, "ios"),
    ])
    func anInvalidLinkNamesItsField(json: String, field: String) throws {
        #expect(throws: LinkValidationError.self) { try HostedLink.links(fromJSON: json) }
        do {
            _ = try HostedLink.links(fromJSON: json)
        } catch let error as LinkValidationError {
            #expect(error.field == field, "\(error)")
        }
    }

    @Test func anArrayNamesTheIndexOfTheInvalidLink() {
        let json = #"[{"slug":"a","web":{"url":"https://a.example"}},{"slug":"b","ios":[{"url":"data:x"}]}]"#
        #expect(
            throws: LinkValidationError(
                field: "[1].ios[0].url", reason: "must be an absolute URL (not javascript:, data:, vbscript:, file:)")
        ) {
            try HostedLink.links(fromJSON: json)
        }
    }

    @Test func everyPlatformGroupIsAccepted() throws {
        let json = #"""
            {"slug":"A-z_09","iphone":[{"url":"a://1"}],"ipad":[{"url":"a://2"}],"windows_phone":[{"url":"a://3"}],
             "windows":[{"url":"a://4","app_id":"w"}],"windows_universal":[{"url":"a://5"}],
             "android":[{"package":"p","class":"C"}]}
            """#
        let link = try #require(try HostedLink.links(fromJSON: json).first)
        #expect(link.targets.count == 6)
    }
}
