/// One `<meta property="..." content="...">` tag read from an HTML page.
///
/// ```swift
/// MetaTagParser.metaTags(in: #"<meta property="al:ios:url" content="example://a?x=1&amp;y=2">"#)
/// // [MetaTag(property: "al:ios:url", content: "example://a?x=1&y=2")]
/// ```
public struct MetaTag: Sendable, Hashable {
    /// The `property` attribute, entities decoded, as written (compare it case-insensitively).
    public var property: String
    /// The `content` attribute with entities decoded; `nil` when the tag has none.
    public var content: String?

    /// Creates a tag.
    public init(property: String, content: String?) {
        self.property = property
        self.content = content
    }
}
