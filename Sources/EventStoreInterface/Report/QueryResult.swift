import MeasurementEvents

/// The rows a query returned.
public struct QueryResult: Sendable, Hashable {
    /// Column names.
    public var columns: [String]
    /// Rows of values (integers, doubles, text, null).
    public var rows: [[JSONValue]]

    /// The rows a backend read: `rows[i][j]` is column `columns[j]` of row `i`.
    public init(columns: [String], rows: [[JSONValue]]) {
        self.columns = columns
        self.rows = rows
    }
}
