/// Replaces every value of a secret key with `REDACTED` before an event reaches storage or a terminal
/// (shared/spec/events.md, "Secrets never reach storage").
///
/// A value is secret when its key, compared case-insensitively, is one of ``secretKeys``:
/// - in flat fields, also as the last part of a flattened key (`extras/fb_access_token`);
/// - in URL queries and fragments (`fb123://authorize#expires_in=0&access_token=SECRET`);
/// - inside JSON, whether it is plain text or embedded in a URL (`al_applink_data=%7B%22extras%22...`)
///   and whatever the percent-encoding (once, twice, with `+` for spaces).
///
/// Text is rewritten in place: only the secret value's bytes change; everything else, including its
/// percent-encoding, stays byte for byte. Text without a secret key is returned unchanged.
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
    }

    /// The event with its fields redacted (name, id and time unchanged).
    public func redact(_ event: MeasurementEvent) -> MeasurementEvent {
        guard fieldsNeedRedaction(event.fields) else { return event }
        var copy = event
        copy.fields = redact(fields: event.fields)
        return copy
    }

    /// Flat fields with every secret value replaced: the value of a secret key (also a flattened
    /// `parent/secret_key`), and secret values inside URLs and JSON text in any value.
    public func redact(fields: [String: String]) -> [String: String] {
        guard fieldsNeedRedaction(fields) else { return fields }
        var result = fields
        for (key, value) in fields {
            if isSecret(key: key) {
                result[key] = Redactor.replacement
            } else if mayHoldSecret(value) {
                result[key] = redactText(value)
            }
        }
        return result
    }

    /// A URL (or any text holding `key=value` pairs or JSON) with every secret value replaced, in its
    /// query, its fragment, and inside embedded JSON whatever the percent-encoding.
    public func redact(urlString: String) -> String {
        mayHoldSecret(urlString) ? redactText(urlString) : urlString
    }

    /// A JSON value with the value of every secret member replaced by the string `REDACTED`, and string
    /// values that hold URLs or JSON text redacted as by ``redact(urlString:)``.
    public func redact(json: JSONValue) -> JSONValue {
        switch json {
        case .string(let text):
            return .string(redact(urlString: text))
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

    /// Whether `key` names a secret: itself or its last part after `/` or `.`, case-insensitively.
    public func isSecret(key: String) -> Bool {
        guard key.utf8.count >= minimumKeyLength else { return false }
        if let answer = key.utf8.withContiguousStorageIfAvailable({ isSecret(keyBytes: $0) }) { return answer }
        return Array(key.utf8).withUnsafeBufferPointer { isSecret(keyBytes: $0) }
    }

    private func isSecret(keyBytes bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = bytes.count
        while start > 0, bytes[start - 1] != UInt8(ascii: "/"), bytes[start - 1] != UInt8(ascii: ".") { start -= 1 }
        return isKey(bytes, 0, bytes.count) || (start > 0 && isKey(bytes, start, bytes.count))
    }

    private func fieldsNeedRedaction(_ fields: [String: String]) -> Bool {
        for (key, value) in fields where isSecret(key: key) || mayHoldSecret(value) {
            return true
        }
        return false
    }

    @inline(__always)
    static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
