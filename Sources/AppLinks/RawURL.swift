/// The parts of a URL string that App Links needs, read from the raw text without normalising it.
///
/// Foundation's URL parsing differs between platforms and versions (it may re-encode, reject or
/// accept characters), so the inbound rules of App Links run on the text itself: the scheme is
/// the part before the first `:` when it is a valid scheme, the query is the text between the first
/// `?` and the first `#`, the fragment is everything after the first `#`.
///
/// ```swift
/// let url = RawURL("fb123://authorize?a=1#access_token=x")
/// url.scheme     // "fb123"
/// url.host       // "authorize"
/// url.query      // "a=1"
/// url.fragment   // "access_token=x"
/// ```
public struct RawURL: Sendable, Hashable {
    /// The whole text.
    public let string: String
    /// The scheme as written (compare it case-insensitively), or `nil` when the text has none.
    public let scheme: String?
    /// The host, lowercased, without user info or port; `nil` without an authority (`//`).
    public let host: String?
    /// The text between the first `?` and the first `#`, without them.
    public let query: Substring?
    /// The text after the first `#`, without it.
    public let fragment: Substring?

    /// Splits `string` into its parts; never fails.
    public init(_ string: String) {
        self.string = string
        let scalars = string.unicodeScalars
        var schemeEnd: String.Index?
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            if scalar == ":" {
                if index != scalars.startIndex { schemeEnd = index }
                break
            }
            let isFirst = index == scalars.startIndex
            guard RawURL.isSchemeCharacter(scalar, first: isFirst) else { break }
            index = scalars.index(after: index)
        }
        scheme = schemeEnd.map { String(string[string.startIndex..<$0]) }

        let hashIndex = scalars.firstIndex(of: "#")
        fragment = hashIndex.map { string[scalars.index(after: $0)...] }
        let beforeFragment = string[..<(hashIndex ?? string.endIndex)]
        let questionIndex = beforeFragment.unicodeScalars.firstIndex(of: "?")
        query = questionIndex.map { beforeFragment[beforeFragment.unicodeScalars.index(after: $0)...] }

        var parsedHost: String?
        if let schemeEnd {
            let rest = beforeFragment[beforeFragment.unicodeScalars.index(after: schemeEnd)...]
            if rest.hasPrefix("//") {
                let authorityStart = rest.unicodeScalars.index(rest.startIndex, offsetBy: 2)
                let authorityAndRest = rest[authorityStart...]
                let authorityEnd =
                    authorityAndRest.unicodeScalars.firstIndex { $0 == "/" || $0 == "?" } ?? authorityAndRest.endIndex
                parsedHost = RawURL.host(ofAuthority: authorityAndRest[..<authorityEnd])
            }
        }
        host = parsedHost
    }

    /// Whether the text is an absolute URL: a valid scheme, a `:`, something after it, and no spaces or
    /// control characters anywhere.
    public var isAbsolute: Bool {
        guard let scheme, string.unicodeScalars.count > scheme.unicodeScalars.count + 1 else { return false }
        return !string.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }

    /// The query parameters by the App Links rules (``QueryParameters/parse(_:)``); empty without a query.
    public var queryParameters: [String: String] {
        query.map { QueryParameters.parse($0) } ?? [:]
    }

    static func isSchemeCharacter(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z": true
        case "0"..."9", "+", "-", ".": !first
        default: false
        }
    }

    static func host(ofAuthority authority: Substring) -> String? {
        var hostPart = authority
        if let at = hostPart.unicodeScalars.lastIndex(of: "@") {
            hostPart = hostPart[hostPart.unicodeScalars.index(after: at)...]
        }
        if hostPart.hasPrefix("[") {
            if let close = hostPart.unicodeScalars.firstIndex(of: "]") {
                hostPart = hostPart[...close]
            }
        } else if let colon = hostPart.unicodeScalars.lastIndex(of: ":") {
            hostPart = hostPart[..<colon]
        }
        return hostPart.isEmpty ? nil : hostPart.lowercased()
    }
}
