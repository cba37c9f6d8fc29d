/// A pattern of an apple-app-site-association file, as iOS matches it against a part of a URL: `*` matches zero or
/// more characters (as many as it can), `?` exactly one, and every other character itself; `?*` therefore matches
/// one or more. Matching is case-sensitive unless asked otherwise (`caseSensitive: false` in the file).
///
/// ```swift
/// AASAPattern("/help/*").matches("/help/articles/12")   // true
/// AASAPattern("????").matches("1234")                    // true
/// AASAPattern("/Buy/*").matches("/buy/x", caseSensitive: false)   // true
/// ```
public struct AASAPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as the file writes it.
    public let text: String

    /// The pattern `text`.
    public init(_ text: String) {
        self.text = text
    }

    public var description: String { text }

    /// Whether the pattern matches all of `candidate`.
    /// - Complexity: O(pattern × candidate) at worst; linear without `*`.
    public func matches(_ candidate: String, caseSensitive: Bool = true) -> Bool {
        let pattern = Array((caseSensitive ? text : text.lowercased()).unicodeScalars)
        let value = Array((caseSensitive ? candidate : candidate.lowercased()).unicodeScalars)
        var (p, v) = (0, 0)
        // The last `*` met and the position in `value` it is tried from: on a mismatch, it takes one more character.
        var star: (pattern: Int, value: Int)?
        while v < value.count {
            if p < pattern.count, pattern[p] == "*" {
                star = (p, v)
                p += 1
            } else if p < pattern.count, pattern[p] == "?" || pattern[p] == value[v] {
                p += 1
                v += 1
            } else if let last = star {
                star = (last.pattern, last.value + 1)
                p = last.pattern + 1
                v = last.value + 1
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
