import MeasurementEvents

/// A database on a PostgreSQL server, from a URL `postgres://user:password@host:port/dbname?sslmode=MODE`
/// (``StoreLocation``). The user and password may be percent-encoded; the port defaults to 5432 and the
/// TLS mode to `prefer`, as libpq's do.
///
/// Its description, debug description and mirror show `***` for the password: a location may go into any
/// message or log line.
///
/// ```swift
/// let server = try PostgresLocation(url: "postgresql://alstats:s%40cret@[::1]:5433/stats?sslmode=disable")
/// // server.password == "s@cret", server.host == "::1", server.port == 5433, server.sslMode == .disable
/// ```
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// When the connection uses TLS, libpq's `sslmode` values.
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        /// Never TLS.
        case disable
        /// TLS only when the server insists.
        case allow
        /// TLS when the server offers it (the default).
        case prefer
        /// TLS always, without checking the certificate.
        case require
        /// TLS always, the certificate signed by a trusted authority.
        case verifyCA = "verify-ca"
        /// TLS always, the certificate signed by a trusted authority and naming the host.
        case verifyFull = "verify-full"
    }

    /// The URL schemes of a PostgreSQL location, lowercased.
    public static let schemes: Set<String> = ["postgres", "postgresql"]
    /// The port when the URL names none.
    public static let defaultPort = 5432

    /// The user name (percent-decoded).
    public var user: String
    /// The password (percent-decoded), or `nil` when the URL has none (a `.pgpass` or trust setup).
    public var password: String?
    /// The host name or address (an IPv6 address without its brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The database name (percent-decoded).
    public var database: String
    /// The TLS mode (`?sslmode=`).
    public var sslMode: SSLMode

    /// Creates a location from its parts.
    public init(
        user: String, password: String?, host: String, port: Int = PostgresLocation.defaultPort, database: String,
        sslMode: SSLMode = .prefer
    ) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// Parses a `postgres://` or `postgresql://` URL.
    /// - Throws: ``StoreError`` of kind ``StoreError/Kind/invalidLocation`` naming what is missing or wrong
    ///   (no user, host or database name, a port outside 1...65535, an unknown parameter or `sslmode`); the
    ///   message shows the URL with `***` for its password.
    public init(url text: String) throws(StoreError) {
        let shown = PostgresLocation.redacting(text)
        func invalid(_ problem: String) -> StoreError {
            StoreError(.invalidLocation, path: shown, "\(shown): \(problem)")
        }
        guard let separator = text.range(of: "://"),
            PostgresLocation.schemes.contains(text[..<separator.lowerBound].lowercased())
        else { throw invalid("not a postgres:// or postgresql:// URL") }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else {
            throw invalid("name the user: postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        let userInfo = authority[..<at]
        let colon = userInfo.firstIndex(of: ":")
        guard let user = PostgresLocation.decoded(userInfo[..<(colon ?? userInfo.endIndex)]), !user.isEmpty else {
            throw invalid("name the user (percent-encode %, @, : and / in it): postgres://USER@HOST/DATABASE")
        }
        var password: String?
        if let colon {
            guard let decoded = PostgresLocation.decoded(userInfo[userInfo.index(after: colon)...]) else {
                throw invalid("the password has a malformed percent escape: write % as %25")
            }
            password = decoded
        }
        let (host, port) = try PostgresLocation.hostAndPort(authority[authority.index(after: at)...], invalid)
        var path = rest[authorityEnd...]
        if let hash = path.firstIndex(of: "#") { path = path[..<hash] }
        let query = path.firstIndex(of: "?").map { path[path.index(after: $0)...] } ?? ""
        path = path[..<(path.firstIndex(of: "?") ?? path.endIndex)]
        guard path.hasPrefix("/"), let database = PostgresLocation.decoded(path.dropFirst()), !database.isEmpty,
            !database.contains("/")
        else { throw invalid("name the database: postgres://USER@HOST:PORT/DATABASE") }
        let sslMode = try PostgresLocation.sslMode(in: query, invalid)
        self.init(user: user, password: password, host: host, port: port, database: database, sslMode: sslMode)
    }

    /// The URL with `***` for the password, the port and `sslmode` always shown.
    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let secret = password == nil ? "" : ":***"
        return "postgres://\(user)\(secret)@\(host):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
    }

    /// The same as ``description``: the password stays out of debug output too.
    public var debugDescription: String { description }

    /// The parts, with `***` for the password (what `dump` and the debugger show).
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "user": user, "password": password == nil ? "none" : "***", "host": host, "port": port,
                "database": database, "sslMode": sslMode,
            ])
    }

    /// `text` with `***` for whatever follows the first `:` of the user part and for the value of every query
    /// parameter but `sslmode`, for messages about a URL that may not parse: the user part runs to the last `@`
    /// of the text, so that a password holding an unescaped `/`, `?` or `@` is hidden whole.
    public static func redacting(_ text: String) -> String {
        guard let separator = text.range(of: "://") else { return text }
        var shown = text
        if let at = text[separator.upperBound...].lastIndex(of: "@"),
            let colon = text[separator.upperBound..<at].firstIndex(of: ":")
        {
            shown = String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
        }
        guard let question = shown.firstIndex(of: "?") else { return shown }
        let pairs = shown[shown.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        let query = pairs.map { pair in
            guard let equals = pair.firstIndex(of: "="), pair[..<equals] != "sslmode" else { return String(pair) }
            return pair[...equals] + "***"
        }
        return String(shown[...question]) + query.joined(separator: "&")
    }

    private static func hostAndPort(
        _ text: Substring, _ invalid: (String) -> StoreError
    ) throws(StoreError) -> (String, Int) {
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw invalid("an IPv6 host needs its closing ]") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("write the port after the host as [HOST]:PORT") }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let decodedHost = decoded(host), !decodedHost.isEmpty else {
            throw invalid("name the host: postgres://USER@HOST:PORT/DATABASE")
        }
        guard let portText else { return (decodedHost, defaultPort) }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw invalid("the port must be a number from 1 to 65535, not '\(portText)'")
        }
        return (decodedHost, port)
    }

    private static func sslMode(in query: Substring, _ invalid: (String) -> StoreError) throws(StoreError) -> SSLMode {
        var mode = SSLMode.prefer
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = decoded(parts[0]) ?? String(parts[0])
            guard key == "sslmode" else {
                throw invalid("unknown parameter '\(key)': only sslmode is read (the password goes before the @)")
            }
            let value = parts.count > 1 ? (decoded(parts[1]) ?? "") : ""
            guard let parsed = SSLMode(rawValue: value) else {
                let known = SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw invalid("sslmode must be one of \(known), not '\(value)'")
            }
            mode = parsed
        }
        return mode
    }

    /// `text` with its `%XX` escapes decoded as UTF-8 (``PercentEncoding``, `+` kept); `nil` for a malformed escape
    /// or bytes that are not UTF-8.
    private static func decoded(_ text: Substring) -> String? {
        PercentEncoding.decode(text, plusAsSpace: false)
    }
}
