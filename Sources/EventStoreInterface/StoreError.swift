/// Why the event store could not do what was asked. Every message names the database (a file, or a URL
/// without its password) and says what to do.
///
/// ```swift
/// do { _ = try SQLiteEventStore(path: "alstats.sqlite") } catch let error as StoreError { print(error) }
/// ```
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, so that callers (the CLI) can choose an exit status.
    public enum Kind: Sendable, Hashable {
        /// The file exists but is not an SQLite database; it was not touched.
        case notADatabase
        /// The file is an SQLite database that fails its integrity check; it was not touched.
        case corrupt
        /// The database was written by a newer alstats (its schema version is above the latest known here).
        case newerSchema
        /// No database exists at the path and the operation does not create one.
        case missing
        /// The database or its folder cannot be written.
        case readOnly
        /// Any other SQLite or file-system failure (full disk, locked database, I/O error).
        case io
        /// `--database` is neither a file path nor a valid database URL (``StoreLocation``); the message
        /// never holds the URL's password.
        case invalidLocation
    }

    /// What went wrong.
    public var kind: Kind
    /// The database concerned: a file path, or a database URL without its password.
    public var path: String
    /// One line: what was wrong with `path` and what to do.
    public var message: String

    /// Another step that would help, which only the caller can word (the CLI names its own options).
    public enum Remedy: Sendable, Hashable {
        /// Nothing beyond the message.
        case none
        /// Use a database at another path.
        case anotherPath
        /// Give the path of an existing database, or create one first.
        case existingOrNewDatabase
    }

    /// Another step that would help, beyond what `message` says.
    public var remedy: Remedy

    /// Creates an error.
    public init(_ kind: Kind, path: String, _ message: String, remedy: Remedy = .none) {
        self.kind = kind
        self.path = path
        self.message = message
        self.remedy = remedy
    }

    /// The message.
    public var description: String { message }
}
