/// A small, tolerant HTML tokenizer that reads `<meta property=...>` tags in document order.
///
/// It runs in one forward pass over the bytes (no backtracking, no regular expressions), so any input,
/// however malformed, ends in linear time without a crash. It understands what matters for meta tags:
/// comments, `<!DOCTYPE>`, end tags, single-, double- and unquoted attribute values, case-insensitive
/// tag and attribute names, and raw-text elements (`script`, `style`, `textarea`, `title`) whose content
/// is not markup. Attribute values have their HTML character references decoded (see ``HTMLEntities``).
/// Tags with `name=` instead of `property=` are not App Link tags and are skipped.
///
/// ```swift
/// let tags = MetaTagParser.metaTags(in: html)   // [MetaTag], in document order
/// ```
public enum MetaTagParser {
    /// The meta tags with a `property` attribute, in document order.
    /// - Parameter html: the page text.
    public static func metaTags(in html: String) -> [MetaTag] {
        metaTags(in: Array(html.utf8))
    }

    /// The meta tags with a `property` attribute, in document order.
    /// - Parameter bytes: the page bytes (UTF-8; invalid sequences become U+FFFD).
    public static func metaTags(in bytes: [UInt8]) -> [MetaTag] {
        var scanner = Scanner(bytes: bytes)
        var tags: [MetaTag] = []
        scanner.scan { name, attributes in
            guard name == "meta", let property = attributes["property"] else { return }
            tags.append(MetaTag(property: property, content: attributes["content"]))
        }
        return tags
    }

    struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Calls `onTag` for every start tag with its lowercased name and attributes (first one of a name wins).
        mutating func scan(_ onTag: (String, [String: String]) -> Void) {
            while let open = find(UInt8(ascii: "<"), from: index) {
                index = open + 1
                guard index < bytes.count else { return }
                let byte = bytes[index]
                if startsWith("!--", at: index) {
                    guard let end = find("-->", from: index + 3) else { return }
                    index = end + 3
                } else if byte == UInt8(ascii: "!") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "/") {
                    guard let end = find(UInt8(ascii: ">"), from: index) else { return }
                    index = end + 1
                } else if isLetter(byte) {
                    let name = readTagName()
                    let attributes = readAttributes()
                    onTag(name, attributes)
                    if ["script", "style", "textarea", "title"].contains(name) { skipRawText(of: name) }
                }
            }
            index = bytes.count
        }

        mutating func readTagName() -> String {
            let start = index
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: "/"),
                bytes[index] != UInt8(ascii: ">")
            {
                index += 1
            }
            return lowercasedASCII(bytes[start..<index])
        }

        /// Reads attributes up to and including the closing `>` (or to the end of input).
        mutating func readAttributes() -> [String: String] {
            var attributes: [String: String] = [:]
            while true {
                while index < bytes.count, isSpace(bytes[index]) || bytes[index] == UInt8(ascii: "/") { index += 1 }
                guard index < bytes.count else { return attributes }
                if bytes[index] == UInt8(ascii: ">") {
                    index += 1
                    return attributes
                }
                // The first character of a name is always taken, so every turn advances (even on `=`).
                let nameStart = index
                index += 1
                while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: "="),
                    bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/")
                {
                    index += 1
                }
                let name = lowercasedASCII(bytes[nameStart..<index])
                skipSpaces()
                var value = ""
                if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                    index += 1
                    skipSpaces()
                    value = HTMLEntities.decode(readValue())
                } else if attributes[name] == nil {
                    // An attribute without a value: present but empty. `content` without `=` counts as missing.
                    if name == "content" { continue }
                }
                if attributes[name] == nil { attributes[name] = value }
            }
        }

        mutating func readValue() -> String {
            guard index < bytes.count else { return "" }
            let quote = bytes[index]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                let start = index + 1
                let end = find(quote, from: start) ?? bytes.count
                index = min(end + 1, bytes.count)
                return String(decoding: bytes[start..<end], as: UTF8.self)
            }
            let start = index
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// Moves to the `<` of the matching end tag (`</script`, any case), or to the end of input.
        mutating func skipRawText(of name: String) {
            let closing = Array("</\(name)".utf8)
            while let open = find(UInt8(ascii: "<"), from: index) {
                if open + closing.count <= bytes.count,
                    bytes[open..<(open + closing.count)].equalsIgnoringASCIICase(closing)
                {
                    index = open
                    return
                }
                index = open + 1
            }
            index = bytes.count
        }

        mutating func skipSpaces() {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        }

        func find(_ byte: UInt8, from start: Int) -> Int? {
            var position = start
            while position < bytes.count {
                if bytes[position] == byte { return position }
                position += 1
            }
            return nil
        }

        func find(_ text: StaticString, from start: Int) -> Int? {
            var position = start
            while let candidate = find(text.utf8Start.pointee, from: position) {
                if startsWith(text, at: candidate) { return candidate }
                position = candidate + 1
            }
            return nil
        }

        func startsWith(_ text: StaticString, at position: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { return false }
            return true
        }

        func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
        }

        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }

        func lowercasedASCII(_ slice: ArraySlice<UInt8>) -> String {
            String(decoding: slice.map(\.asciiLowercased), as: UTF8.self)
        }
    }
}
