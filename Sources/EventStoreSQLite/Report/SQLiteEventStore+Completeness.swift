import EventStoreInterface
import SQLiteSupport

extension SQLiteEventStore {
    /// The table in which the uploader (module EventUpload) counts what a device's outbox lost: the store reads it,
    /// when the file has it, so that `alstats report` on a device's database shows those losses too.
    static let uploaderCompletenessTable = "upload_completeness"

    /// The completeness counts of the database behind `connection` of the UTC days that begin in `[since, until)`
    /// (`nil`: no bound), keyed by kind and reason: the store's own `completeness`, plus the uploader's
    /// ``uploaderCompletenessTable`` when the file is also an outbox (its counts dated by the day they last grew).
    static func completeness(
        on connection: SQLiteConnection, since: Int64? = nil, until: Int64? = nil
    ) throws(SQLiteError) -> [String: [String: Int]] {
        let name =
            try connection.hasTable(uploaderCompletenessTable)
            ? "select_completeness_with_device" : "select_completeness"
        let statement = try connection.prepare(EmbeddedSQL.statement(name))
        defer { statement.reset() }
        statement.bind(1, since)
        statement.bind(2, until)
        var result: [String: [String: Int]] = [:]
        while try statement.step() {
            result[statement.text(0) ?? "", default: [:]][statement.text(1) ?? ""] = Int(statement.int64(2))
        }
        return result
    }
}
