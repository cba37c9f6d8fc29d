/// Escaping for text that goes into HTML and inline SVG: element content and quoted attribute values.
///
/// Every value that comes from events (referer app names, refs, hosts, errors, URLs) passes through
/// ``escape(_:)`` before it reaches the page, so that `<script>` or `"><img onerror=...>` in a field shows
/// as text and never becomes markup.
///
/// ```swift
/// HTMLEscaping.escape("<b>\"Tom\" & 'Jerry'</b>")
/// // "&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;"
/// ```
public enum HTMLEscaping {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, and control characters
    /// other than tab, newline and carriage return (which HTML forbids) replaced by U+FFFD.
    ///
    /// The result is safe as element content and inside a single- or double-quoted attribute value,
    /// in HTML and in SVG embedded in HTML.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension String {
    /// This text escaped for HTML (``HTMLEscaping/escape(_:)``).
    package var htmlEscaped: String { HTMLEscaping.escape(self) }
}
