/// Why a hosted link was refused, naming the field (`slug`, `ios[0].url`, `web.url`, ...).
///
/// ```swift
/// LinkValidationError(field: "web.url", reason: "must be an http or https URL").description
/// // "web.url: must be an http or https URL"
/// ```
public struct LinkValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path of the offending field in the link's JSON; empty for the link as a whole.
    public var field: String
    /// What is wrong with it.
    public var reason: String

    /// Creates an error.
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    /// `field: reason`, or the reason alone for the whole link.
    public var description: String { field.isEmpty ? reason : "\(field): \(reason)" }
}
