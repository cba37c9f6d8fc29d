import MeasurementEvents
import Testing

@testable import EventStoreInterface

/// Which target URLs are arrivals at a hosted link (`<origin>/l/<slug>`), as the view `link_event` reads them.
struct LinkRollupKeyTests {
    @Test(arguments: [
        ("https://go.example.com/l/invite?referral=42", "https://go.example.com", "invite"),
        ("https://go.example.com/l/invite", "https://go.example.com", "invite"),
        ("https://go.example.com/l/invite#top", "https://go.example.com", "invite"),
        ("fb-messenger+x.1://host:8080/l/a_b-C9?x=1", "fb-messenger+x.1://host:8080", "a_b-C9"),
        ("https://é.example/l/x", "https://é.example", "x"),
        (
            "https://go.example.com/l/" + String(repeating: "a", count: 64), "https://go.example.com",
            String(repeating: "a", count: 64)
        ),
    ])
    func aLinkURLGivesItsOriginAndSlug(text: String, origin: String, slug: String) throws {
        let link = try #require(LinkRollupKey.linkURL(text))
        #expect(link.origin == origin && link.slug == slug)
    }

    @Test(arguments: [
        "", "https://", "://go.example.com/l/x", "ht tp://go.example.com/l/x", "https://a?b/l/x", "https://a#b/l/x",
        "https:///l/x", "https://go.example.com/x/l/y", "https://go.example.com/l", "https://go.example.com/l/",
        "https://go.example.com/L/x", "https://go.example.com/l/in vite", "https://go.example.com/l/x/y",
        "https://go.example.com/l/?x", "a://b://c/l/x", "https://go.example.com",
        "https://go.example.com/l/" + String(repeating: "a", count: 65),
    ])
    func anyOtherTextIsNoLinkURL(text: String) {
        #expect(LinkRollupKey.linkURL(text) == nil)
    }
}
