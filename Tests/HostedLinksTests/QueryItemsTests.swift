import Foundation
import Testing

@testable import HostedLinks

/// The per-hit byte-level parsing (issue 14) answers what Foundation answered before it.
@Suite struct QueryItemsTests {
    /// The Foundation decoding the hit path used before: `+` as a space, then `removingPercentEncoding`,
    /// the spaced text when that fails.
    static func foundationDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    @Test(arguments: [
        "ref=mail", "ref=a+b&referral=%3Cscript%3E", "a%26b=c%3Dd&flag&&x=", "bad=%zz&short=%4&end=%",
        "utf8=%C3%A9t%C3%A9", "notutf8=%C3%28&more=1", "plus=%2B+%2b", "=empty&ref=%22%3E%3C%27",
        "caf\u{e9}=th\u{e9}&emoji=%F0%9F%98%80", "%=%%", "x=%GG%41",
    ])
    func queryItemsDecodeAsFoundationDid(query: String) {
        let expected = query.split(separator: "&").map { item -> (String, String?) in
            guard let equals = item.firstIndex(of: "=") else { return (Self.foundationDecoded(item), nil) }
            return (Self.foundationDecoded(item[..<equals]), Self.foundationDecoded(item[item.index(after: equals)...]))
        }
        let items = LinkHitRequest.queryItems(query)
        #expect(items.map(\.name) == expected.map(\.0))
        #expect(items.map(\.value) == expected.map(\.1))
    }

    /// An item that decodes to a NUL is kept as sent, as one that is not UTF-8 is: no store keeps a NUL (PostgreSQL's
    /// text cannot hold one, and a hit holding one failed the whole group commit it was in).
    @Test func anItemThatDecodesToANulIsKeptAsSent() {
        let items = LinkHitRequest.queryItems("ref=%00&k%00=a+%00b&ok=%41+b")
        #expect(items.map(\.name) == ["ref", "k%00", "ok"])
        #expect(items.map(\.value) == ["%00", "a %00b", "A b"])
    }

    @Test func anEmptyOrMissingQueryHasNoItems() {
        #expect(LinkHitRequest.queryItems(nil).isEmpty && LinkHitRequest.queryItems("").isEmpty)
    }

    @Test(arguments: [
        ("Twitterbot/1.0", "twitterbot", true), ("TWITTERBOT", "twitterbot", true),
        ("twitter bot", "twitterbot", false),
        ("x", "twitterbot", false), ("", "a", false), ("\u{e9}android", "android", true), ("ANDROI", "android", false),
    ])
    func markersAreFoundASCIICaseInsensitively(text: String, marker: String, found: Bool) {
        #expect(ASCIIText.contains(text, marker: Array(marker.utf8)) == found)
        #expect(text.lowercased().contains(marker) == found, "the same answer as lowercasing and searching")
    }
}
