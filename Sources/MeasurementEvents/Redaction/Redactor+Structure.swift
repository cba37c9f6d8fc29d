/// Redaction by structure: the text is decoded the way a consumer decodes it (a URL into query and
/// fragment pairs, each key and value percent-decoded with `+` as a space; JSON parsed with its escapes
/// decoded), keys are compared decoded, and the structure is written back with the secret values
/// replaced. Values that are URLs or JSON are followed down to ``Redactor/maximumStructureDepth``.
extension Redactor {
    /// How deep values inside values are followed (a URL holding `al_applink_data` JSON whose
    /// `target_url` holds a query is three levels).
    public static let maximumStructureDepth = 8

    /// `text` with the value of every secret key replaced, found by structure; `text` itself when
    /// nothing in it was secret. What a consumer decodes from the result is what it decoded from `text`,
    /// but for the secrets (percent-encoding may be rewritten in upper-case hex, JSON written compactly).
    func redactStructure(_ text: String, depth: Int = 0) -> String {
        guard depth < Redactor.maximumStructureDepth, text.utf8.count > minimumKeyLength else { return text }
        let trimmed = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        if trimmed.first == "{" || trimmed.first == "[", let json = try? JSONValue.parse(text) {
            let redacted = redactStructure(json: json, depth: depth)
            return redacted == json ? text : redacted.jsonText()
        }
        if Redactor.isPercentEncodedWhole(trimmed) {
            // Decoded as by `removingPercentEncoding`, or as a form value (`+` as a space) when only that is
            // JSON: a consumer reads the reading that parses.
            let plain = PercentEncoding.decodeLeniently(text, plusAsSpace: false)
            let form = PercentEncoding.decodeLeniently(text, plusAsSpace: true)
            let parses = { (text: String) in (try? JSONValue.parse(text)) != nil }
            for decoded in parses(plain) || !parses(form) ? [plain, form] : [form] {
                let redacted = redactStructure(decoded, depth: depth + 1)
                if redacted != decoded { return PercentEncoding.encode(redacted) }
            }
            return text
        }
        return redactPairs(text, depth: depth)
    }

    private func redactStructure(json: JSONValue, depth: Int) -> JSONValue {
        switch json {
        case .string(let text):
            return .string(redactStructure(text, depth: depth + 1))
        case .array(let values):
            return .array(values.map { redactStructure(json: $0, depth: depth + 1) })
        case .object(let object):
            var result = JSONObject()
            for member in object {
                result[member.key] =
                    isSecret(key: member.key)
                    ? .string(Redactor.replacement) : redactStructure(json: member.value, depth: depth + 1)
            }
            return .object(result)
        default:
            return json
        }
    }

    /// Rewrites the `key=value` pairs of the query and the fragment (or of the whole text when it has
    /// neither but holds `=`). A pair whose decoded key is secret gets `REDACTED`; any other value is
    /// decoded, redacted by structure, and encoded again when that changed it.
    private func redactPairs(_ text: String, depth: Int) -> String {
        let bytes = Array(text.utf8)
        let question = bytes.firstIndex(of: UInt8(ascii: "?"))
        let hash = bytes.firstIndex(of: UInt8(ascii: "#"))
        var sections: [Range<Int>] = []
        if let question, hash.map({ question < $0 }) ?? true {
            sections.append(question + 1..<(hash ?? bytes.count))
        }
        if let hash { sections.append(hash + 1..<bytes.count) }
        if sections.isEmpty, bytes.contains(UInt8(ascii: "=")) { sections.append(0..<bytes.count) }
        var output: [UInt8] = []
        var position = 0
        var changed = false
        for section in sections {
            output.append(contentsOf: bytes[position..<section.lowerBound])
            let rewritten = redactPairList(bytes[section], depth: depth)
            changed = changed || rewritten != Array(bytes[section])
            output.append(contentsOf: rewritten)
            position = section.upperBound
        }
        guard changed else { return text }
        output.append(contentsOf: bytes[position...])
        return String(decoding: output, as: UTF8.self)
    }

    private func redactPairList(_ list: ArraySlice<UInt8>, depth: Int) -> [UInt8] {
        var pairs: [[UInt8]] = []
        for pair in list.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else {
                pairs.append(Array(pair))
                continue
            }
            let key = Redactor.fullyDecodedKey(pair[pair.startIndex..<equals])
            let rawValue = String(decoding: pair[(equals + 1)...], as: UTF8.self)
            var value = Array(rawValue.utf8)
            if isSecret(key: key) {
                value = Array(Redactor.replacement.utf8)
            } else if rawValue.utf8.count > minimumKeyLength {
                let decoded = PercentEncoding.decodeLeniently(rawValue, plusAsSpace: true)
                let redacted = redactStructure(decoded, depth: depth + 1)
                if redacted != decoded { value = Array(PercentEncoding.encode(redacted).utf8) }
            }
            pairs.append(Array(pair[pair.startIndex...equals]) + value)
        }
        return Array(pairs.joined(separator: [UInt8(ascii: "&")]))
    }

    /// A key as a consumer may read it: percent-decoded until nothing changes, `+` as a space.
    private static func fullyDecodedKey(_ raw: ArraySlice<UInt8>) -> String {
        var bytes = Array(raw).map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
        for _ in 0..<decodingRounds {
            let next = percentDecodeAll(bytes)
            if next == bytes { break }
            bytes = next
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` is a whole value percent-encoded once more: it starts with an encoded `{`, `[`
    /// or `%` (`%7B`, `%5B`, `%25`, either case).
    private static func isPercentEncodedWhole(_ text: Substring) -> Bool {
        let prefix = Array(text.utf8.prefix(3))
        guard prefix.count == 3, prefix[0] == UInt8(ascii: "%"), let high = HexDigits.value(prefix[1]),
            let low = HexDigits.value(prefix[2])
        else { return false }
        let byte = high << 4 | low
        return byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "%")
    }
}
