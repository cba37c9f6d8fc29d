import CSQLite

/// What the report and `alstats query` need beyond the writer's use: named parameters, column names
/// and types, for statements whose SQL comes from `Queries/*.sql`.
extension SQLiteStatement {
    /// The index of the parameter `name` (with its prefix, `:since`), or `nil` when the SQL has none.
    package func parameterIndex(_ name: String) -> Int32? {
        let index = sqlite3_bind_parameter_index(handle, name)
        return index == 0 ? nil : index
    }

    /// The names of the statement's parameters, in index order (`:since`, `:until`, ...).
    package var parameterNames: [String] {
        let count = sqlite3_bind_parameter_count(handle)
        guard count > 0 else { return [] }
        return (1...count).compactMap { index in sqlite3_bind_parameter_name(handle, index).map { String(cString: $0) }
        }
    }

    /// How many columns a row has.
    package var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of column `column`.
    package func columnName(_ column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? "column\(column + 1)"
    }

    /// Column `column` as a double.
    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// Whether column `column` holds an integer.
    package func isInteger(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_INTEGER }

    /// Whether column `column` holds a floating-point number.
    package func isFloat(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_FLOAT }

    /// Binds `value` to the parameter `name` when the SQL has it.
    package func bind(named name: String, _ value: String?) {
        if let index = parameterIndex(name) { bind(index, value) }
    }

    /// Binds `value` to the parameter `name` when the SQL has it.
    package func bind(named name: String, _ value: Int64?) {
        if let index = parameterIndex(name) { bind(index, value) }
    }
}
