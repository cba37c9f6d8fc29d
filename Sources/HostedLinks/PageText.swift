import MeasurementEvents

/// Escaping for the hosted page: HTML text and attributes, and RFC 3986 percent-encoding.
enum PageText {
    /// `& < > " '` as character references, so no value can end an attribute or start markup; control
    /// characters HTML forbids as U+FFFD. The report's escaper (``HTMLEscaping``), one for every page we write.
    static func html(_ text: String) -> String {
        HTMLEscaping.escape(text)
    }

    /// The UTF-8 bytes of `text`, RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`) as they are,
    /// every other byte as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        PercentEncoding.encode(text)
    }

    /// `url` with `name=value` pairs appended: `&` when it has a query, `?` otherwise, before any `#fragment`.
    static func appending(_ pairs: [(name: String, value: String)], to url: String) -> String {
        appending(query: query(pairs), to: url)
    }

    /// `pairs` percent-encoded as `name=value&...`.
    static func query(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }.joined(separator: "&")
    }

    /// `url` with an encoded `query` appended, as ``appending(_:to:)`` does.
    static func appending(query: String, to url: String) -> String {
        guard !query.isEmpty else { return url }
        let hash = url.firstIndex(of: "#") ?? url.endIndex
        let base = url[..<hash]
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + query + url[hash...]
    }
}
