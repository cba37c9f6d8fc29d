import AppLinks
import Testing

struct QueryParametersTests {
    @Test(
        arguments: [
            ("a=1&b=2", ["a": "1", "b": "2"]),
            ("q=x+y", ["q": "x y"]),
            ("q=x%2By", ["q": "x+y"]),
            ("a=1&a=2&a=3", ["a": "3"]),
            ("flag&a=1", ["flag": "", "a": "1"]),
            ("flag=", ["flag": ""]),
            ("&&a=1&&", ["a": "1"]),
            ("", [:]),
            ("a=%zz&b=2", ["b": "2"]),
            ("a=%&b=2", ["b": "2"]),
            ("a=%4&b=2", ["b": "2"]),
            ("%zz=1&b=2", ["b": "2"]),
            ("a=%FF%FE&b=2", ["b": "2"]),
            ("u=%F0%9F%98%80", ["u": "😀"]),
            ("t=https://x.com/a?b=c=d", ["t": "https://x.com/a?b=c=d"]),
            ("=v", ["": "v"]),
            ("k%3Dx=1", ["k=x": "1"]),
            ("a=1&\u{301}b=2", ["a": "1", "\u{301}b": "2"]),
        ] as [(String, [String: String])])
    func parsesQueriesByTheAppLinksRules(query: String, expected: [String: String]) {
        #expect(QueryParameters.parse(query) == expected)
    }

    @Test(arguments: ["a&b=c+d#e", "100% sure", "x=y&z", "😀 ~-._", "\u{0}"])
    func strictEncodingSurvivesParsing(value: String) {
        let query = "v=" + QueryParameters.encode(value)
        #expect(QueryParameters.parse(query)["v"] == value)
        #expect(!QueryParameters.encode(value).contains { "&=+# ".contains($0) })
    }

    @Test func keepsOnlyUnreservedCharactersRaw() {
        #expect(QueryParameters.encode("aZ09-._~ &=+#/?%") == "aZ09-._~%20%26%3D%2B%23%2F%3F%25")
    }

    @Test func reportsKeysWhoseValueDoesNotDecode() {
        #expect(QueryParameters.keysWithUndecodableValues("al_applink_data=%7B%zz&b=1") == ["al_applink_data"])
    }
}
