import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

extension QueryCatalog {
    /// Runs `query` with `parameters` (names without the colon; a whole number binds as an integer for a parameter
    /// of ``QueryCatalog/integerParameters``, anything else as text; unbound parameters are NULL, which the queries
    /// read as "no filter").
    /// - Throws: ``QueryError`` for a parameter the query does not have; ``StoreError`` from SQLite.
    public static func run(_ query: Query, parameters: [String: String], on store: SQLiteEventStore) throws
        -> QueryResult
    {
        try store.withStoreRethrowing { connection throws -> QueryResult in
            let statement = try connection.connection.prepare(query.text)
            let known = Set(statement.parameterNames.map { String($0.dropFirst()) })
            for (key, value) in parameters {
                guard known.contains(key) else {
                    throw QueryError.unknownParameter(query: query.name, parameter: key, known: known.sorted())
                }
                if QueryCatalog.integerParameters.contains(key), let number = Int64(value) {
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
