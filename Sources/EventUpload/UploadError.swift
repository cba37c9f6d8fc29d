import SQLiteSupport

/// Why an upload stopped: every message names what went wrong and says what to do.
///
/// ```swift
/// do { try await sink.upload() } catch { print(error.kind, error.message) }
/// ```
public struct UploadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, so that callers (the CLI) can choose an exit status.
    public enum Kind: Sendable, Hashable {
        /// The collector refused the write key (401 or 403): uploading is paused, nothing was deleted.
        case refused(status: Int)
        /// The collector answered with another client error (404, 405, 415, …) that retrying cannot fix:
        /// uploading is paused, nothing was deleted.
        case misdirected(status: Int)
        /// The collector stayed unreachable (network errors, 408, 429, 5xx) for longer than the give-up time.
        case unreachable
        /// The outbox or the database failed (see the message).
        case store
        /// The upload was cancelled (its task was cancelled, or the sink was closed).
        case cancelled
    }

    /// What went wrong.
    public var kind: Kind
    /// One line: what went wrong and what to do.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// An error of the outbox or database.
    init(_ error: SQLiteError) {
        self.init(.store, error.message)
    }

    /// The message.
    public var description: String { message }
}
