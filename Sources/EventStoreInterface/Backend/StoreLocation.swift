/// Where the events are stored, as `--database` names it: an SQLite file path, or a PostgreSQL URL
/// `postgres://user:password@host:port/dbname?sslmode=require` (also `postgresql://`).
///
/// Its description never holds the password, so a location can go into any message or log line.
///
/// ```swift
/// switch try StoreLocation(parsing: "postgres://alstats:secret@db.example.com/alstats?sslmode=require") {
/// case .sqlite(let path): print("SQLite file", path)
/// case .postgres(let server): print(server)   // postgres://alstats:***@db.example.com:5432/alstats?sslmode=require
/// }
/// ```
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// An SQLite database file.
    case sqlite(path: String)
    /// A database on a PostgreSQL server.
    case postgres(PostgresLocation)

    /// Reads `text` as `--database` gives it: a `postgres://` or `postgresql://` URL (the scheme in any case) is
    /// a PostgreSQL location; another `scheme://` is refused; anything else is an SQLite file path.
    /// - Throws: ``StoreError`` of kind ``StoreError/Kind/invalidLocation`` for an empty text, another scheme,
    ///   or a malformed URL; the message shows the URL without its password.
    public init(parsing text: String) throws(StoreError) {
        guard !text.isEmpty else {
            throw StoreError(
                .invalidLocation, path: text, "the database location is empty: give a file path or a postgres:// URL")
        }
        if let scheme = StoreLocation.scheme(of: text) {
            guard PostgresLocation.schemes.contains(scheme.lowercased()) else {
                throw StoreError(
                    .invalidLocation, path: PostgresLocation.redacting(text),
                    "\(PostgresLocation.redacting(text)) is not a database this alstats knows: give a file path "
                        + "(SQLite) or a postgres:// URL")
            }
            self = .postgres(try PostgresLocation(url: text))
        } else {
            self = .sqlite(path: text)
        }
    }

    /// The file path, or the URL with `***` for its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let server): server.description
        }
    }

    /// The same as ``description``: the password stays out of debug output too.
    public var debugDescription: String { description }

    /// The scheme of `text` when it starts with `scheme://` (letters, digits, `+`, `-`, `.` after a letter).
    private static func scheme(of text: String) -> Substring? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return scheme
    }
}
