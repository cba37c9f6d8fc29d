/// Why a bundled query could not run.
public enum QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `--param` named a parameter the query does not have.
    case unknownParameter(query: String, parameter: String, known: [String])
    /// The backend cannot run the bundled query (PostgreSQL has no variant of it yet); `database` is where it
    /// was asked, without a password.
    case notAvailable(query: String, database: String)

    public var description: String {
        switch self {
        case .unknownParameter(let query, let parameter, let known):
            let list = known.isEmpty ? "it takes none" : "its parameters: " + known.joined(separator: ", ")
            return "query \(query) has no parameter '\(parameter)'; \(list)"
        case .notAvailable(let query, let database):
            return "query \(query) does not run on \(database) yet: the bundled queries are written for SQLite; "
                + "run the SQL of your own with psql, or `alstats report`, which reads PostgreSQL"
        }
    }
}
