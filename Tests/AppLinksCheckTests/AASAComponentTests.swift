import AppLinksCheck
import Foundation
import MeasurementEvents
import Testing

/// The `components` of an apple-app-site-association, as iOS 13 and later match them: every part a component gives
/// must match; a part it leaves out matches anything; named query items; `exclude`, `caseSensitive`,
/// `percentEncoded` and the file's `defaults`.
struct AASAComponentTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var component: String
        var url: String
        var matches: Bool
        var defaults: String? = nil
        var testDescription: String { "\(component) ~ \(url) → \(matches)" }
    }

    static let cases: [Case] = [
        Case(component: #"{}"#, url: "https://a.example/anything?x=1#y", matches: true),
        Case(component: #"{"/": "/l/*"}"#, url: "https://a.example/l/invite", matches: true),
        Case(component: #"{"/": "/l/*"}"#, url: "https://a.example/m/invite", matches: false),
        Case(component: #"{"/": "/"}"#, url: "https://a.example", matches: true),
        // The query as a whole, and by named items (an absent item is the empty string).
        Case(component: #"{"/": "/s", "?": "q=*"}"#, url: "https://a.example/s?q=shoes", matches: true),
        Case(component: #"{"/": "/s", "?": "q=*"}"#, url: "https://a.example/s", matches: false),
        Case(component: #"{"?": {"id": "????"}}"#, url: "https://a.example/p?x=1&id=1234", matches: true),
        Case(component: #"{"?": {"id": "????"}}"#, url: "https://a.example/p?id=123", matches: false),
        Case(component: #"{"?": {"id": "*"}}"#, url: "https://a.example/p", matches: true),
        Case(component: #"{"?": {"id": "?*"}}"#, url: "https://a.example/p", matches: false),
        Case(component: #"{"?": {"id": "?*"}}"#, url: "https://a.example/p?id", matches: false),
        Case(component: #"{"?": {"id": "1?"}}"#, url: "https://a.example/p?id=12&id=13", matches: true),
        Case(component: #"{"?": {"id": "1?"}}"#, url: "https://a.example/p?id=12&id=23", matches: false),
        // The fragment.
        Case(
            component: ##"{"#": "no_universal_links"}"##, url: "https://a.example/x#no_universal_links", matches: true),
        Case(component: ##"{"#": "no_universal_links"}"##, url: "https://a.example/x", matches: false),
        // Case and percent-encoding, on the component and through the file's defaults.
        Case(component: #"{"/": "/Help/*"}"#, url: "https://a.example/help/a", matches: false),
        Case(component: #"{"/": "/Help/*", "caseSensitive": false}"#, url: "https://a.example/help/a", matches: true),
        Case(
            component: #"{"/": "/Help/*"}"#, url: "https://a.example/help/a", matches: true,
            defaults: #"{"caseSensitive": false}"#),
        Case(
            component: #"{"/": "/Help/*", "caseSensitive": true}"#, url: "https://a.example/help/a", matches: false,
            defaults: #"{"caseSensitive": false}"#),
        Case(component: #"{"/": "/caf%C3%A9/*"}"#, url: "https://a.example/caf%C3%A9/1", matches: true),
        Case(component: #"{"/": "/café/*"}"#, url: "https://a.example/caf%C3%A9/1", matches: false),
        Case(
            component: #"{"/": "/café/*", "percentEncoded": false}"#, url: "https://a.example/caf%C3%A9/1",
            matches: true),
        Case(
            component: #"{"/": "/café/*"}"#, url: "https://a.example/caf%C3%A9/1", matches: true,
            defaults: #"{"percentEncoded": false}"#),
    ]

    @Test(arguments: cases)
    func componentsMatchAsIOSMatchesThem(_ test: Case) throws {
        let defaults = try test.defaults.map { try JSONValue.parse($0) }
        let component = try AASAComponent(json: JSONValue.parse(test.component), defaults: defaults)
        #expect(component.matches(AASAURL(try #require(URL(string: test.url)))) == test.matches)
    }

    @Test(arguments: [
        #"[]"#, #"{"/": 3}"#, #"{"?": ["a"]}"#, #"{"?": {"a": 1}}"#, #"{"exclude": "yes"}"#, ##"{"#": true}"##,
    ])
    func aComponentWithAKeyOfTheWrongTypeIsRefusedWithItsReason(_ text: String) throws {
        #expect(throws: AppleAppSiteAssociation.Problem.self) {
            try AASAComponent(json: JSONValue.parse(text))
        }
    }
}
