import EventStore
import MeasurementEvents

/// The bundled `Queries/*.sql`, carried in the binary: list them, run one with parameters.
///
/// ```swift
/// let result = try QueryCatalog.run(QueryCatalog.query(named: "failure_reasons")!, parameters: [:], on: store)
/// print(result.render(.csv))
/// ```
public enum QueryCatalog {
    /// One bundled query.
    public struct Query: Sendable, Hashable {
        /// The file name without `.sql`.
        public var name: String
        /// The first line of its header comment, after `name:`.
        public var summary: String
        /// The SQL, exactly as in the file.
        public var text: String
    }

    /// Every bundled query, by name.
    public static var all: [Query] {
        BundledQueries.files.map { file in
            let firstLine = file.text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
            var summary = firstLine.hasPrefix("--") ? String(firstLine.dropFirst(2)) : ""
            if let colon = summary.firstIndex(of: ":"),
                summary[..<colon].trimmingCharacters(in: .whitespaces) == file.stem
            {
                summary = String(summary[summary.index(after: colon)...])
            }
            return Query(name: file.stem, summary: summary.trimmingCharacters(in: .whitespaces), text: file.text)
        }.sorted { $0.name < $1.name }
    }

    /// The query called `name`, or `nil`.
    public static func query(named name: String) -> Query? {
        all.first { $0.name == name }
    }

    /// Runs `query` with `parameters` (names without the colon; a whole number binds as an integer,
    /// anything else as text; unbound parameters are NULL, which the queries read as "no filter").
    /// - Throws: ``QueryError`` for a parameter the query does not have; ``StoreError`` from SQLite.
    public static func run(_ query: Query, parameters: [String: String], on store: EventStore) throws -> QueryResult {
        try store.withConnection { connection throws -> QueryResult in
            let statement = try connection.connection.prepare(query.text)
            let known = Set(statement.parameterNames.map { String($0.dropFirst()) })
            for (key, value) in parameters {
                guard known.contains(key) else {
                    throw QueryError.unknownParameter(query: query.name, parameter: key, known: known.sorted())
                }
                if let number = Int64(value) {
                    statement.bind(named: ":" + key, number)
                } else {
                    statement.bind(named: ":" + key, value)
                }
            }
            let columns = (0..<statement.columnCount).map { statement.columnName($0) }
            var rows: [[JSONValue]] = []
            while try statement.step() {
                rows.append(
                    (0..<statement.columnCount).map { column in
                        if statement.isNull(column) { return .null }
                        if statement.isInteger(column) { return .int(statement.int64(column)) }
                        if statement.isFloat(column) { return .double(statement.double(column)) }
                        return .string(statement.text(column) ?? "")
                    })
            }
            return QueryResult(columns: columns, rows: rows)
        }
    }
}
