/// Why a bundled query could not run.
public enum QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--param` named a parameter the query does not have.
    case unknownParameter(query: String, parameter: String, known: [String])

    public var description: String {
        switch self {
        case .unknownParameter(let query, let parameter, let known):
            let list = known.isEmpty ? "it takes none" : "its parameters: " + known.joined(separator: ", ")
            return "query \(query) has no parameter '\(parameter)'; \(list)"
        }
    }
}
