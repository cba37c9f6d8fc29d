import Hummingbird
import NIOCore

/// Why the server refused a request or could not start: one error type for the HTTP face.
///
/// A request error carries the status and headers of its answer, whose body is `{"error": "message"}`;
/// a configuration error (``Kind/configuration``) stops `alstats serve` before it listens.
public struct EventServerError: Error, Sendable, CustomStringConvertible, HTTPResponseError {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The keys, config file or options cannot work (exit 64).
        case configuration
        /// The store cannot be opened (exit 74).
        case store
        /// A request answered with a 4xx or 5xx status.
        case request
    }

    /// What went wrong.
    public var kind: Kind
    /// The status the request is answered with.
    public var status: HTTPResponse.Status
    /// The message: what was wrong and what to do.
    public var message: String
    /// Extra answer headers (`WWW-Authenticate`, `Retry-After`).
    public var headers: HTTPFields

    /// A request error answered with `status` and `message`.
    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.kind = .request
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// A configuration error with `message`.
    public static func configuration(_ message: String) -> EventServerError {
        var error = EventServerError(.internalServerError, message)
        error.kind = .configuration
        return error
    }

    /// A store error with `message`.
    public static func store(_ message: String) -> EventServerError {
        var error = EventServerError(.internalServerError, message)
        error.kind = .store
        return error
    }

    /// The message.
    public var description: String { message }

    /// The answer: the status, the headers and `{"error": "message"}`.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        Response.json(JSONText.object(["error": .string(message)]), status: status, headers: headers)
    }
}
