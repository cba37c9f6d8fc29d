/// Why a bundled query could not run.
public enum QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--param` named a parameter the query does not have.
    case unknownParameter(query: String, parameter: String, known: [String])
    /// The database could not read a parameter's value as the type the query uses it as (PostgreSQL, for a
    /// `since` that is not a number); `message` is the database's.
    case invalidParameter(query: String, message: String)

    public var description: String {
        switch self {
        case .unknownParameter(let query, let parameter, let known):
            let list = known.isEmpty ? "it takes none" : "its parameters: " + known.joined(separator: ", ")
            return "query \(query) has no parameter '\(parameter)'; \(list)"
        case .invalidParameter(let query, let message):
            return "query \(query) cannot use a parameter's value: \(message)"
        }
    }
}
