import AppLinksCheck
import Testing

/// Apple's wildcards: `*` zero or more characters, `?` exactly one, `?*` one or more; case-sensitive unless asked.
struct AASAPatternTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var pattern: String
        var candidate: String
        var caseSensitive = true
        var matches: Bool
        var testDescription: String { "\(pattern) ~ \(candidate)\(caseSensitive ? "" : " (any case)") → \(matches)" }
    }

    static let cases: [Case] = [
        Case(pattern: "*", candidate: "", matches: true),
        Case(pattern: "*", candidate: "/anything/at/all", matches: true),
        Case(pattern: "/l/*", candidate: "/l/invite", matches: true),
        Case(pattern: "/l/*", candidate: "/l/", matches: true),
        Case(pattern: "/l/*", candidate: "/l", matches: false),
        Case(pattern: "/l/?*", candidate: "/l/", matches: false),
        Case(pattern: "/l/?*", candidate: "/l/a", matches: true),
        Case(pattern: "????", candidate: "1234", matches: true),
        Case(pattern: "????", candidate: "123", matches: false),
        Case(pattern: "????", candidate: "12345", matches: false),
        Case(pattern: "/a/*/c", candidate: "/a/b/x/c", matches: true),
        Case(pattern: "/a/*/c", candidate: "/a/b/c/d", matches: false),
        Case(pattern: "*.html", candidate: "/x.html.bak", matches: false),
        Case(pattern: "*a*b", candidate: "xaxbxab", matches: true),
        Case(pattern: "/wwdc/news/", candidate: "/wwdc/news/", matches: true),
        Case(pattern: "/wwdc/news/", candidate: "/wwdc/news", matches: false),
        Case(pattern: "/Buy/*", candidate: "/buy/x", matches: false),
        Case(pattern: "/Buy/*", candidate: "/buy/x", caseSensitive: false, matches: true),
        Case(pattern: "/caf%C3%A9", candidate: "/caf%C3%A9", matches: true),
        Case(pattern: "/café", candidate: "/cafe", matches: false),
        Case(pattern: "/é?", candidate: "/éa", matches: true),
        Case(pattern: "", candidate: "", matches: true),
        Case(pattern: "", candidate: "/", matches: false),
    ]

    @Test(arguments: cases)
    func patternsMatchAsIOSMatchesThem(_ test: Case) {
        #expect(AASAPattern(test.pattern).matches(test.candidate, caseSensitive: test.caseSensitive) == test.matches)
    }
}
