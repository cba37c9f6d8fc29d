import EventStoreInterface
import SQLiteSupport

extension SQLiteEventStore: CompletenessRecords {
    /// Every row of the store's completeness table, by kind, reason and day (Statements/select_completeness_rows.sql).
    public func completenessRows() throws(StoreError) -> [CompletenessRow] {
        try withStore { store throws(SQLiteError) in
            let statement = try store.connection.prepare(EmbeddedSQL.statement("select_completeness_rows"))
            defer { statement.reset() }
            var rows: [CompletenessRow] = []
            while try statement.step() {
                rows.append(
                    CompletenessRow(
                        kind: statement.text(0) ?? "", reason: statement.text(1) ?? "", day: statement.int64(2),
                        count: Int(statement.int64(3))))
            }
            return rows
        }
    }

    /// Restores `rows` in one transaction, after committing any batch the writer holds: each count becomes the
    /// larger of the stored one and the row's (Statements/restore_completeness.sql).
    public func restoreCompleteness(_ rows: [CompletenessRow]) throws(StoreError) {
        let now = clock.nowMilliseconds()
        try withStore { store throws(SQLiteError) in
            if store.writer.inTransaction { try store.writer.commit() }
            try store.connection.execute("BEGIN IMMEDIATE", doing: "restoring completeness")
            do throws(SQLiteError) {
                let statement = try store.connection.prepare(EmbeddedSQL.statement("restore_completeness"))
                for row in rows {
                    statement.bind(1, row.kind)
                    statement.bind(2, row.reason)
                    statement.bind(3, row.day)
                    statement.bind(4, Int64(row.count))
                    statement.bind(5, now)
                    try statement.run()
                }
                try store.connection.execute("COMMIT", doing: "restoring completeness")
            } catch {
                try? store.connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}
