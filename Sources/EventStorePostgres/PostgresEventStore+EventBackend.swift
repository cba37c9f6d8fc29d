import EventStoreInterface
import Foundation
import MeasurementEvents
import PostgresNIO

/// The PostgreSQL store behind the backend protocols, so that the server and the CLI need not know which
/// backend they write to and read from.
extension PostgresEventStore: EventBackend {}

extension PostgresEventStore: ReportSource {
    /// PostgreSQL: a bundled query runs its `Queries/postgres/NAME.sql` variant where it has one, else the portable
    /// file.
    public var dialect: QueryCatalog.Dialect { .postgres }

    /// Runs a bundled query (from ``QueryCatalog/query(named:dialect:)`` with ``dialect``) with `parameters`,
    /// giving the values SQLite gives for the same rows: integers (PostgreSQL's `bigint`, and `numeric` without
    /// decimals, as a `sum` is), doubles (`numeric` with decimals, as a `round(x, 4)` is), text and null.
    /// Parameters are bound as text (``PostgresNamedSQL``); unbound ones are NULL.
    /// - Throws: ``QueryError/unknownParameter(query:parameter:known:)`` for a parameter the query does not have,
    ///   ``QueryError/invalidParameter(query:message:)`` for a value PostgreSQL cannot read as its type (a
    ///   `since` that is not a number), ``StoreError`` when the database cannot be read.
    public func runQuery(_ query: QueryCatalog.Query, parameters: [String: String]) async throws -> QueryResult {
        let sql = PostgresNamedSQL(query.text)
        for key in parameters.keys.sorted() where !sql.names.contains(key) {
            throw QueryError.unknownParameter(query: query.name, parameter: key, known: sql.names.sorted())
        }
        do {
            return try await client.withConnection { connection in
                try await self.queryResult(sql.text, sql.bindings(parameters), on: connection)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState]?.hasPrefix("22") == true {
            // Class 22, data exception: a parameter's text is not a value of the type the query casts it to.
            throw QueryError.invalidParameter(query: query.name, message: error.serverInfo?[.message] ?? "\(error)")
        } catch {
            throw storeError(error, doing: "running query \(query.name)")
        }
    }

    private func queryResult(_ sql: String, _ binds: PostgresBindings, on connection: PostgresConnection)
        async throws -> QueryResult
    {
        let sequence = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        var rows: [[JSONValue]] = []
        for try await row in sequence {
            rows.append(try row.map(Self.value(of:)))
        }
        return QueryResult(columns: sequence.columns.map(\.name), rows: rows)
    }

    /// A cell as the value SQLite would give: SQLite has integers, doubles, text and null, and a `sum` of
    /// integers is an integer there where PostgreSQL's is a `numeric`.
    private static func value(of cell: PostgresCell) throws -> JSONValue {
        guard let bytes = cell.bytes else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8:
            return .int(try cell.decode(Int64.self))
        case .float4, .float8:
            return .double(try cell.decode(Double.self))
        case .bool:
            return .int(try cell.decode(Bool.self) ? 1 : 0)
        case .numeric:
            // The binary form starts with ndigits, weight, sign and dscale, each an Int16: dscale is the number of
            // decimals the value is shown with.
            let text = "\(try cell.decode(Decimal.self))"
            let scale = bytes.getInteger(at: bytes.readerIndex + 6, endianness: .big, as: Int16.self) ?? 0
            if scale == 0, let integer = Int64(text) { return .int(integer) }
            if let double = Double(text) { return .double(double) }
            return .string(text)
        default:
            return .string(try cell.decode(String.self))
        }
    }
}
