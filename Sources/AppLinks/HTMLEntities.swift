/// Decodes HTML character references in attribute values: the named ones that appear in URLs and
/// names (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#39;`, `&nbsp;`), decimal `&#NN;` and hex
/// `&#xHH;`. An unknown or malformed reference stays as written; a number that is not a Unicode scalar
/// becomes U+FFFD.
///
/// ```swift
/// HTMLEntities.decode("example://a?x=1&amp;y=&#50;")   // "example://a?x=1&y=2"
/// ```
public enum HTMLEntities {
    static let named: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
    ]

    /// Returns `text` with its character references decoded.
    public static func decode(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let scalars = text.unicodeScalars
        var output = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            guard scalar == "&" else {
                output.append(scalar)
                index = scalars.index(after: index)
                continue
            }
            // Look for `;` within a short distance, so that the scan stays linear.
            var end = scalars.index(after: index)
            var length = 0
            while end < scalars.endIndex, scalars[end] != ";", scalars[end] != "&", length < 32 {
                end = scalars.index(after: end)
                length += 1
            }
            if end < scalars.endIndex, scalars[end] == ";",
                let replacement = reference(Substring(scalars[scalars.index(after: index)..<end]))
            {
                output.append(contentsOf: replacement.unicodeScalars)
                index = scalars.index(after: end)
            } else {
                output.append(scalar)
                index = scalars.index(after: index)
            }
        }
        return String(output)
    }

    /// The text of one reference name (between `&` and `;`), or `nil` when it is not one.
    static func reference(_ name: Substring) -> String? {
        if let text = named[name] { return text }
        guard name.first == "#" else { return nil }
        let digits = name.dropFirst()
        let number: UInt32?
        if digits.first == "x" || digits.first == "X" {
            number = digits.count > 1 ? UInt32(digits.dropFirst(), radix: 16) : nil
        } else {
            number = digits.isEmpty ? nil : UInt32(digits, radix: 10)
        }
        guard let number else { return nil }
        return String(Unicode.Scalar(number) ?? "\u{FFFD}")
    }
}
