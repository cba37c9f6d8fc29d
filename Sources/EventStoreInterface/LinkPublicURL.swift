import MeasurementEvents

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

    /// The public URL `text` (a trailing `/` allowed), or `nil` when it is not `http://host[:port]` or
    /// `https://host[:port]`: a host without a user or password (a public URL is printed on every page and stored),
    /// an IPv6 host in brackets, a port of 1 to 65535.
    public init?(_ text: String) {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let parsed = LinkRollupKey.linkURL(trimmed + "/l/x"), parsed.origin == trimmed else { return nil }
        let lowercased = LinkPublicURL.lowercasedASCII(trimmed)
        guard LinkPublicURL.isHostAndPort(lowercased.split(separator: "://", maxSplits: 1).last ?? ""),
            lowercased.hasPrefix("https://") || lowercased.hasPrefix("http://")
        else { return nil }
        self.text = lowercased
    }

    /// Whether `authority` is `host` or `host:port`: a non-empty host without `@` (an IPv6 literal in brackets) and
    /// a port of 1 to 65535 in decimal digits.
    private static func isHostAndPort(_ authority: Substring) -> Bool {
        guard !authority.isEmpty, !authority.contains("@") else { return false }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[...close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty, host != "[]" else { return false }
        guard let port else { return true }
        guard port.count <= 5, port.utf8.allSatisfy(\.isASCIIDigit), let number = Int(port) else {
            return false
        }
        return (1...65_535).contains(number)
    }

    /// ASCII letters lowercased, as SQLite's `lower()` does: the report compares with it.
    package static func lowercasedASCII(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
