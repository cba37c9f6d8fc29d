/// A public URL under which hosted links are served: `scheme://authority` (`https://go.example.com`), with
/// the pages at `/l/{slug}` of the site's root, as the verified-link files (`/l/*`) require.
///
/// The report counts an `al_nav_in` as an arrival of a link only when its `targetURL` is the link's canonical
/// URL on a recorded public URL (``LinkStore/recordPublicURL(_:)``): the scheme and host compare
/// case-insensitively, everything else exactly.
///
/// ```swift
/// LinkPublicURL("https://Go.Example.com/")?.text   // "https://go.example.com"
/// LinkPublicURL("https://go.example.com/links")     // nil: links are served at the root
/// ```
public struct LinkPublicURL: Sendable, Hashable {
    /// The URL, lowercased, without a trailing `/`.
    public let text: String

    /// The public URL `text` (a trailing `/` allowed), or `nil` when it is not `scheme://authority` with a
    /// scheme of `A-Z a-z 0-9 + . -` and an authority without `/`, `?` or `#`.
    public init?(_ text: String) {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let parsed = LinkRollupKey.linkURL(trimmed + "/l/x"), parsed.origin == trimmed else { return nil }
        self.text = LinkPublicURL.lowercasedASCII(trimmed)
    }

    /// ASCII letters lowercased, as SQLite's `lower()` does: the report compares with it.
    package static func lowercasedASCII(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
