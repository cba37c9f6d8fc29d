import Foundation
import MeasurementEvents

/// What a key may do (docs/http-api.md, "Keys").
public enum AccessRole: String, Sendable, CaseIterable {
    /// Send events (`/v1/*`).
    case write
    /// Read the report and `/metrics`.
    case read
    /// Everything `read` may, and manage links.
    case admin

    /// Whether a key of this role may do what `required` allows.
    func grants(_ required: AccessRole) -> Bool {
        switch (self, required) {
        case (.admin, .read), (.admin, .admin), (.read, .read), (.write, .write): return true
        default: return false
        }
    }
}

/// The keys the server accepts, by role, and the check of a request's `Authorization` header.
///
/// Keys are kept only as their bytes, compared in constant time (every configured key is compared, in
/// full, whatever matched), and never printed: `description` shows counts only.
///
/// ```swift
/// let keys = try AccessKeys.load(configFile: "serve.json", environment: ProcessInfo.processInfo.environment)
/// keys.check("Bearer w1", for: .write)   // .allowed
/// ```
public struct AccessKeys: Sendable, CustomStringConvertible {
    /// The answer to one request's credentials.
    public enum Decision: Sendable, Hashable {
        /// The key may do this.
        case allowed
        /// No key, or a header with no key that can be read: 401.
        case unauthenticated
        /// A key that is not one of this server's: 401 too, with a message saying so.
        case unknownKey
        /// A known key of a role that may not: 403.
        case forbidden
    }

    private var keys: [(role: AccessRole, bytes: [UInt8])]
    /// `true` with `--no-auth`: every request is allowed.
    public let open: Bool

    /// Keys by role; `open` allows every request (for `--no-auth` on a loopback host).
    public init(write: [String] = [], read: [String] = [], admin: [String] = [], open: Bool = false) {
        keys = []
        for (role, list) in [(AccessRole.write, write), (.read, read), (.admin, admin)] {
            for key in list where !key.isEmpty { keys.append((role, Array(key.utf8))) }
        }
        self.open = open
    }

    /// The keys in the order configured: a key's position here is how ``check(_:for:)`` names the key it matched.
    var entries: [(role: AccessRole, bytes: [UInt8])] { keys }

    /// How many keys of `role` are configured.
    public func count(of role: AccessRole) -> Int { keys.count { $0.role == role } }

    /// Counts per role, never a key.
    public var description: String {
        AccessRole.allCases.map { "\($0.rawValue): \(count(of: $0))" }.joined(separator: ", ")
    }

    /// Reads keys from a config file (JSON `{"write_keys": [...], "read_keys": [...], "admin_keys": [...]}`,
    /// other members ignored) and from `ALSTATS_WRITE_KEYS`, `ALSTATS_READ_KEYS`, `ALSTATS_ADMIN_KEYS`
    /// (comma-separated) in `environment`; both sources add up.
    /// - Throws: ``EventServerError`` (configuration) naming the file and what is wrong with it.
    public static func load(
        configFile: String?, environment: [String: String], open: Bool = false
    ) throws(EventServerError) -> AccessKeys {
        var lists: [AccessRole: [String]] = [:]
        if let configFile {
            let config = try ServerConfigFile.read(configFile)
            for role in AccessRole.allCases {
                lists[role, default: []] += try config.strings("\(role.rawValue)_keys")
            }
        }
        for role in AccessRole.allCases {
            let variable = "ALSTATS_\(role.rawValue.uppercased())_KEYS"
            let values = (environment[variable] ?? "").split(separator: ",")
            lists[role, default: []] += values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return AccessKeys(write: lists[.write] ?? [], read: lists[.read] ?? [], admin: lists[.admin] ?? [], open: open)
    }

    /// Whether the request whose `Authorization` header is `authorization` may do what `role` allows.
    ///
    /// The key is `Bearer KEY`, or HTTP Basic with the key as user name and an empty password (Segment's
    /// libraries), or as the password with any user name (a browser's prompt).
    public func check(_ authorization: String?, for role: AccessRole) -> Decision {
        identify(authorization, for: role).decision
    }

    /// The decision of ``check(_:for:)``, and the position in ``entries`` of the key that was allowed (nil when
    /// the request was not allowed, or with `--no-auth`): the rate limiter finds the key's bucket by it.
    func identify(_ authorization: String?, for role: AccessRole) -> (decision: Decision, key: Int?) {
        if open { return (.allowed, nil) }
        guard let authorization, let presented = AccessKeys.presentedKey(authorization) else {
            return (.unauthenticated, nil)
        }
        var granted = false
        var known = false
        var matched = -1
        for (index, entry) in keys.enumerated() {
            // No early exit: every key is compared in full, so the time says nothing about which matched.
            let matches = AccessKeys.constantTimeEquals(entry.bytes, presented)
            let grants = matches && entry.role.grants(role)
            known = known || matches
            if grants && !granted { matched = index }
            granted = granted || grants
        }
        if granted { return (.allowed, matched) }
        return (known ? .forbidden : .unknownKey, nil)
    }

    /// The key a header presents, or nil for a scheme other than Bearer and Basic or a malformed value.
    static func presentedKey(_ header: String) -> [UInt8]? {
        // Bytes, not `String` and `CharacterSet`: this runs on every request (1% of the collector under load).
        let bytes = Array(header.utf8)
        let space = UInt8(ascii: " ")
        guard let schemeStart = bytes.firstIndex(where: { $0 != space }),
            let schemeEnd = bytes[schemeStart...].firstIndex(of: space)
        else { return nil }
        let scheme = bytes[schemeStart..<schemeEnd]
        var valueStart = schemeEnd + 1
        var valueEnd = bytes.count
        while valueStart < valueEnd, isOptionalSpace(bytes[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, isOptionalSpace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        let value = Array(bytes[valueStart..<valueEnd])
        if scheme.equalsIgnoringASCIICase("bearer".utf8) { return value.isEmpty ? nil : value }
        guard scheme.equalsIgnoringASCIICase("basic".utf8), let data = Data(base64Encoded: Data(value)) else {
            return nil
        }
        let decoded = [UInt8](data)
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return decoded.isEmpty ? nil : decoded }
        let user = Array(decoded[..<colon])
        let password = Array(decoded[(colon + 1)...])
        let key = password.isEmpty ? user : password
        return key.isEmpty ? nil : key
    }

    /// The key a header presents, named for a 401's message without giving it away: its first characters (a quarter
    /// of it, at most 4, when they are printable ASCII) and its length, such as `'wr…' (11 characters)`.
    static func maskedKey(in header: String) -> String {
        guard let key = presentedKey(header) else { return "no key" }
        let shown = key.prefix(min(4, key.count / 4))
        let length = String(counting: key.count, "character")
        guard !shown.isEmpty, shown.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return "(\(length))" }
        return "'\(String(decoding: shown, as: UTF8.self))…' (\(length))"
    }

    /// HTTP's optional white space around a value: a space or a tab.
    private static func isOptionalSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// Compares two byte strings in time that depends on their lengths only, not on where they differ.
    static func constantTimeEquals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count) | (left.count == right.count ? 0 : 1)
        let length = max(left.count, right.count)
        for index in 0..<length {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
