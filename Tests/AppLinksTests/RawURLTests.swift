import AppLinks
import Testing

struct RawURLTests {
    @Test(
        arguments: [
            ("https://user:pw@Example.COM:8443/a?b=1#c", "https", "example.com", "b=1", "c"),
            ("fb123://authorize#access_token=x", "fb123", "authorize", nil, "access_token=x"),
            ("example:path?q#f#g", "example", nil, "q", "f#g"),
            ("http://[::1]:80/x", "http", "[::1]", nil, nil),
            ("a#b?c", nil, nil, nil, "b?c"), ("x:y#b?c", "x", nil, nil, "b?c"),
            ("no scheme?x=1", nil, nil, "x=1", nil),
            ("1abc://host", nil, nil, nil, nil),
            (":x", nil, nil, nil, nil),
            ("", nil, nil, nil, nil),
        ] as [(String, String?, String?, String?, String?)])
    func splitsTheRawText(text: String, scheme: String?, host: String?, query: String?, fragment: String?) {
        let url = RawURL(text)
        #expect(url.scheme == scheme)
        #expect(url.host == host)
        #expect(url.query.map(String.init) == query)
        #expect(url.fragment.map(String.init) == fragment)
    }

    @Test(arguments: [
        ("https://example.com/a", true), ("other-app://item/9", true), ("mailto:a@b.c", true),
        ("https:", false), ("/relative", false), ("https://example.com/a b", false), ("https://e.com/\n", false),
        ("not a url", false), ("", false),
    ])
    func tellsAbsoluteURLs(text: String, absolute: Bool) {
        #expect(RawURL(text).isAbsolute == absolute)
    }

    @Test func aPlainDeepLinkIgnoresItsFragment() {
        let link = AppLinkURL(parsing: "example://p?a=1#a=2&b=3")
        #expect(link.inputQueryParameters == ["a": "1"])
    }
}
