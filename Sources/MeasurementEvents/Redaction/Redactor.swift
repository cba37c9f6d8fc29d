/// Replaces every value of a secret key with `REDACTED` before an event reaches storage or a terminal
/// (docs/events.md, "Secrets never reach storage").
///
/// A value is secret when its key, compared case-insensitively, is one of ``secretKeys``:
/// - in flat fields, also as any part of a flattened key (`extras/fb_access_token`, `extras/password/hint`);
/// - in URL queries and fragments (`fb123://authorize#expires_in=0&access_token=SECRET`);
/// - inside JSON, whether it is plain text or embedded in a URL (`al_applink_data=%7B%22extras%22...`)
///   and whatever the percent-encoding (once, twice, with `+` for spaces).
///
/// Keys are compared case-insensitively, after decoding them as a consumer would: percent escapes in
/// either hex case and at any depth, `+` as a space in queries, JSON string escapes (`\u0061ccess_token`).
/// Case-insensitive, because a missed credential cannot be taken back while a redacted value that was not
/// one costs little, and because clients write `Access_Token` as readily as `access_token`.
///
/// Each value goes through three stages, each taken only when the one before left a secret visible in
/// the value's fully decoded form (``exposesSecret(_:)``):
/// 1. the byte scanner: only the secret value's bytes change, everything else (its percent-encoding
///    included) stays byte for byte;
/// 2. redaction by structure (``redactStructure(_:depth:)``): query and fragment pairs are decoded, JSON is
///    parsed, values holding URLs or JSON are followed to ``maximumStructureDepth`` levels, and the
///    structure is written back so that a consumer decodes the same text but for the secrets;
/// 3. what still shows a secret (text that looks encoded but does not parse) is replaced whole by
///    `REDACTED` and counted in ``conservativeRedactions``.
/// Text without a secret key is returned unchanged.
///
/// ```swift
/// let redactor = Redactor()
/// redactor.redact(urlString: "fb123://authorize#expires_in=0&access_token=abc&target_url=x")
/// // "fb123://authorize#expires_in=0&access_token=REDACTED&target_url=x"
/// ```
public struct Redactor: Sendable {
    /// The keys whose values are secret unless configured otherwise.
    public static let defaultSecretKeys: Set<String> = [
        "access_token", "fb_access_token", "refresh_token", "id_token", "client_secret", "password", "code",
    ]

    /// The text that replaces a secret value.
    public static let replacement = "REDACTED"

    /// The completeness reason under which stores count values replaced whole (kind `altered`).
    public static let conservativeReason = "redacted_unparsed"

    /// The secret keys, lowercased.
    public let secretKeys: Set<String>

    /// The keys as lowercase bytes, for the byte scanner.
    let keyBytes: [[UInt8]]
    /// Bit `n` is set when some key is `n` bytes long (keys up to 63 bytes).
    let keyLengths: UInt64
    /// Bit `b & 63` is set for the first byte `b` of some key (a cheap pre-test before comparing).
    let firstBytes: UInt64
    /// The length of the shortest key.
    let minimumKeyLength: Int
    /// Bit `b & 63` is set for the last byte `b` of some key: most tokens before a `:` or `=` (`"target_url":`) end in
    /// no key's last byte, and are refused before they are scanned back.
    let lastBytes: UInt64
    /// Counts values replaced whole because they could not be redacted by structure (shared by copies).
    private(set) var counter = RedactionCounter()

    /// Creates a redactor.
    /// - Parameter secretKeys: the keys whose values are replaced, matched case-insensitively; by default
    ///   ``defaultSecretKeys``.
    public init(secretKeys: some Sequence<String> = Redactor.defaultSecretKeys) {
        let keys = Set(secretKeys.map { $0.lowercased() }.filter { !$0.isEmpty })
        self.secretKeys = keys
        keyBytes = keys.sorted().map { Array($0.utf8) }
        keyLengths = keys.reduce(0) { mask, key in key.utf8.count < 64 ? mask | (1 << UInt64(key.utf8.count)) : mask }
        firstBytes = keys.reduce(0) { mask, key in mask | (1 << UInt64((key.utf8.first ?? 0) & 63)) }
        minimumKeyLength = keys.map(\.utf8.count).min() ?? Int.max
        lastBytes = keys.reduce(0) { mask, key in mask | (1 << UInt64((key.utf8.last ?? 0) & 63)) }
    }

    /// A redactor of the same keys whose count of values replaced whole is its own, starting at zero: a
    /// batch's count then travels with the batch. Cheaper than ``init(secretKeys:)`` with the same keys.
    package func withOwnCount() -> Redactor {
        var copy = self
        copy.counter = RedactionCounter()
        return copy
    }

    /// The event with its fields redacted (name, id and time unchanged).
    public func redact(_ event: MeasurementEvent) -> MeasurementEvent {
        guard let fields = redactedFields(event.fields) else { return event }
        var copy = event
        copy.fields = fields
        return copy
    }

    /// Flat fields with every secret value replaced: the value of a secret key (also a flattened
    /// `parent/secret_key`), and secret values inside URLs and JSON text in any value.
    public func redact(fields: [String: String]) -> [String: String] {
        redactedFields(fields) ?? fields
    }

    /// The redacted fields, or `nil` when no value changed (the common case costs no copy).
    private func redactedFields(_ fields: [String: String]) -> [String: String]? {
        // Without keys nothing is secret: the generic ingest's reader redacts with none (its backend redacts),
        // and reading every value to find that out was 4% of its CPU.
        guard !secretKeys.isEmpty else { return nil }
        var result: [String: String]? = nil
        for (key, value) in fields {
            guard let redacted = isSecret(key: key) ? Redactor.replacement : redactedValue(value) else { continue }
            if result == nil { result = fields }
            result?[key] = redacted
        }
        return result
    }

    /// A URL (or any text holding `key=value` pairs or JSON) with every secret value replaced, in its
    /// query, its fragment, and inside embedded JSON whatever the percent-encoding.
    public func redact(urlString: String) -> String {
        redactValue(urlString)
    }

    /// How many values this redactor (and its copies) replaced whole because a secret key stayed visible
    /// after redaction by structure: text that looks encoded but does not parse.
    public var conservativeRedactions: Int { counter.value }

    /// Returns ``conservativeRedactions`` and sets it to zero (a store moves the count into its
    /// completeness table when it commits).
    public func takeConservativeRedactions() -> Int { counter.take() }

    /// Gives back a count taken by ``takeConservativeRedactions()`` that could not be stored.
    public func restoreConservativeRedactions(_ count: Int) { counter.add(count) }

    /// One value through the three stages described on ``Redactor``.
    func redactValue(_ text: String) -> String {
        redactedValue(text) ?? text
    }

    /// ``redactValue(_:)``, or `nil` when the value shows no secret (the common case: no copy, no comparison).
    private func redactedValue(_ text: String) -> String? {
        guard exposesSecret(text) else { return nil }
        let scanned = redactText(text)
        guard exposesSecret(scanned) || !Redactor.keepsStructure(text, scanned) else { return scanned }
        let structured = redactStructure(text)
        guard exposesSecret(structured) else { return structured }
        let both = redactStructure(scanned)
        guard exposesSecret(both) else { return both }
        counter.add(1)
        return Redactor.replacement
    }

    /// A JSON value with the value of every secret member replaced by the string `REDACTED`, and string
    /// values that hold URLs or JSON text redacted as by ``redact(urlString:)``.
    public func redact(json: JSONValue) -> JSONValue {
        switch json {
        case .string(let text):
            return .string(redactValue(text))
        case .array(let values):
            return .array(values.map { redact(json: $0) })
        case .object(let object):
            var result = JSONObject()
            for member in object {
                result[member.key] =
                    isSecret(key: member.key) ? .string(Redactor.replacement) : redact(json: member.value)
            }
            return .object(result)
        default:
            return json
        }
    }

    /// Whether `key` names a secret: itself or any of its parts between `/` and `.`, case-insensitively (a value
    /// nested under a secret key, `extras/access_token/value`, is a value of that key).
    public func isSecret(key: String) -> Bool {
        guard key.utf8.count >= minimumKeyLength else { return false }
        if let answer = key.utf8.withContiguousStorageIfAvailable({ isSecret(keyBytes: $0) }) { return answer }
        return Array(key.utf8).withUnsafeBufferPointer { isSecret(keyBytes: $0) }
    }

    /// ``isSecret(key:)`` of a key's UTF-8 bytes read in place.
    package func isSecret(keyBytes bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= minimumKeyLength else { return false }
        if isKey(bytes, 0, bytes.count) { return true }
        var end = bytes.count
        var index = bytes.count
        while index > 0 {
            index -= 1
            guard bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: ".") else { continue }
            if end - index - 1 >= minimumKeyLength, isKey(bytes, index + 1, end) { return true }
            end = index
        }
        return end < bytes.count && end >= minimumKeyLength && isKey(bytes, 0, end)
    }
}
