/// Why NDJSON input could not be read: a missing or unreadable file, or an invalid line.
///
/// Its ``description`` is `file:line: reason` for a line, `file: reason` for a whole file.
public struct IngestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is (the CLI maps them to exit statuses 66, 74, 65).
    public enum Kind: Sendable, Hashable {
        /// The input file does not exist.
        case missingFile
        /// The input could not be read (permissions, an I/O error).
        case unreadable
        /// One line is not a valid event.
        case invalidLine
    }

    /// The kind of problem.
    public var kind: Kind
    /// The input's name as the user gave it (`-` reads as `stdin`).
    public var file: String
    /// The 1-based line number, for ``Kind/invalidLine``.
    public var line: Int?
    /// What is wrong.
    public var reason: String

    /// Creates an error.
    public init(_ kind: Kind, file: String, line: Int? = nil, reason: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `file:line: reason`, or `file: reason`.
    public var description: String {
        if let line { return "\(file):\(line): \(reason)" }
        return "\(file): \(reason)"
    }
}
