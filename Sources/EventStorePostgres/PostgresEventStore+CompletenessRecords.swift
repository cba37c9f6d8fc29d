import EventStoreInterface
import PostgresNIO

extension PostgresEventStore: CompletenessRecords {
    /// Every row of the completeness table, by kind, reason and day (Statements/select_completeness_rows.sql).
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func completenessRows() async throws(StoreError) -> [CompletenessRow] {
        try await withConnection(doing: "reading completeness") { connection in
            try await self.rows(PostgresSQL.statement("select_completeness_rows"), on: connection) { row in
                CompletenessRow(
                    kind: try row[0].decode(String.self), reason: try row[1].decode(String.self),
                    day: try row[2].decode(Int64.self), count: Int(try row[3].decode(Int64.self)))
            }
        }
    }

    /// Restores `rows` in one transaction: each count becomes the larger of the stored one and the row's
    /// (Statements/restore_completeness.sql).
    /// - Throws: ``StoreError``; then nothing was restored.
    public func restoreCompleteness(_ rows: [CompletenessRow]) async throws(StoreError) {
        guard !rows.isEmpty else { return }
        let now = clock.nowMilliseconds()
        try await inTransaction(doing: "restoring completeness") { connection in
            var binds = PostgresBindings()
            binds.append(rows.map(\.kind))
            binds.append(rows.map(\.reason))
            binds.append(rows.map(\.day))
            binds.append(rows.map { Int64($0.count) })
            binds.append(now)
            try await self.run(PostgresSQL.statement("restore_completeness"), binds, on: connection)
        }
    }
}
