import MeasurementEvents

/// The query-string rules of App Links, applied to the raw text of a URL (not Foundation's parsing).
///
/// - split on `&`; the first `=` separates key from value (later `=` belong to the value);
/// - keys and values are percent-decoded, and `+` decodes to a space;
/// - the last of repeated keys wins; a key without `=` has the empty string as value;
/// - an empty component is skipped; a pair with an escape that does not decode (`%zz`, a lone `%`,
///   bytes that are not UTF-8) is skipped.
///
/// ```swift
/// QueryParameters.parse("a=1&b=x+y&a=2&flag&bad=%zz")
/// // ["a": "2", "b": "x y", "flag": ""]
/// QueryParameters.encode("a&b=c+d#e")   // "a%26b%3Dc%2Bd%23e"
/// ```
public enum QueryParameters {
    /// Parses a query string (or a fragment written like one) into a dictionary by the rules above.
    /// - Parameter query: the text after `?` (or `#`), without that character.
    /// - Returns: the decoded parameters; never fails.
    public static func parse(_ query: some StringProtocol) -> [String: String] {
        var parameters: [String: String] = [:]
        for (key, value) in pairs(query) {
            guard let decodedKey = decode(bytes: key), let decodedValue = decode(bytes: value) else { continue }
            parameters[decodedKey] = decodedValue
        }
        return parameters
    }

    /// The raw (undecoded) key and value bytes of each non-empty `&`-separated component, split at the
    /// first `=`. Works on bytes, so a `&` is a separator whatever character follows it.
    static func pairs(_ query: some StringProtocol) -> [(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] {
        let bytes = Array(query.utf8)
        var result: [(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] = []
        for component in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = component.firstIndex(of: UInt8(ascii: "=")) {
                result.append((component[component.startIndex..<equals], component[(equals + 1)...]))
            } else {
                result.append((component, []))
            }
        }
        return result
    }

    /// The decoded keys of the pairs that ``parse(_:)`` skipped because their value did not decode.
    ///
    /// Used to tell "no `al_applink_data`" from "an `al_applink_data` with a broken escape".
    public static func keysWithUndecodableValues(_ query: some StringProtocol) -> Set<String> {
        var keys: Set<String> = []
        for (key, value) in pairs(query) where decode(bytes: value) == nil {
            if let decodedKey = decode(bytes: key) { keys.insert(decodedKey) }
        }
        return keys
    }

    /// Percent-decodes one key or value; `+` becomes a space.
    /// - Returns: the decoded text, or `nil` for a malformed escape or bytes that are not UTF-8.
    public static func decode(_ text: some StringProtocol) -> String? {
        decode(bytes: Array(text.utf8)[...])
    }

    static func decode(bytes input: ArraySlice<UInt8>) -> String? {
        PercentEncoding.decode(utf8: input, plusAsSpace: true)
    }

    /// Percent-encodes `text` so that only the RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`)
    /// stay raw: `&`, `=`, `+`, `#`, `%`, spaces and every non-ASCII byte are escaped, so the value
    /// survives any query parser.
    public static func encode(_ text: some StringProtocol) -> String {
        PercentEncoding.encode(text)
    }
}
