/// Why an SQLite file could not be opened, read or written: what SQLiteSupport throws. Every message names the
/// file and says what to do. The modules that use SQLiteSupport carry it into their own errors (the SQLite store's
/// `SQLiteError`, the uploader's `UploadError`), kind for kind.
///
/// ```swift
/// let settings = SQLiteConnection.OpenSettings(create: false)
/// do {
///     _ = try SQLiteConnection.openChecked(path: "events.sqlite", settings: settings, migrator: migrator)
/// } catch {
///     print(error.kind, error.message)   // .missing, "no database at events.sqlite"
/// }
/// ```
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, so that callers can choose what to do (and the CLI an exit status).
    public enum Kind: Sendable, Hashable {
        /// The file exists but is not an SQLite database; it was not touched.
        case notADatabase
        /// The file is an SQLite database that fails its integrity check; it was not touched.
        case corrupt
        /// The file was written by a newer program (its schema version is above the latest known here).
        case newerSchema
        /// No file exists at the path and the operation does not create one.
        case missing
        /// The file or its folder cannot be written.
        case readOnly
        /// Any other SQLite or file-system failure (full disk, locked database, I/O error).
        case io
    }

    /// Another step that would help, which only the caller can word (the CLI names its own options).
    public enum Remedy: Sendable, Hashable {
        /// Nothing beyond the message.
        case none
        /// Use a file at another path.
        case anotherPath
        /// Give the path of an existing database, or create one first.
        case existingOrNewDatabase
    }

    /// What went wrong.
    public var kind: Kind
    /// The file concerned.
    public var path: String
    /// One line: what was wrong with `path` and what to do.
    public var message: String
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
