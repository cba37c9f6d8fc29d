import Foundation
import TestSupport
import Testing

@testable import EventStore
@testable import EventStoreInterface
@testable import EventUpload
@testable import SQLiteSupport

/// What the uploader embeds (the EmbedSQL plugin's `GeneratedSQL` of EventUpload) is every `.sql` file of its
/// folders, byte for byte, and its schema is recorded apart from EventStore's.
struct UploadSQLTests {
    @Test func theEmbeddedMigrationsAreExactlyTheFilesInMigrationsUpload() throws {
        let files = try EmbeddedSQLFile.files(in: Repository.path("Migrations/upload"))
        #expect(!files.isEmpty)
        #expect(UploadSQL.migrations == files, "the embedded migrations differ from Migrations/upload/*.sql")
        #expect(files.compactMap(\.migrationVersion) == Array(1...files.count))
        #expect(files.allSatisfy { $0.name.wholeMatch(of: /\d{4}_[a-z0-9_]+\.sql/) != nil })
    }

    @Test func theEmbeddedStatementsAreExactlyTheFilesInStatements() throws {
        let files = try EmbeddedSQLFile.files(in: Repository.path("Sources/EventUpload/Statements"))
        #expect(!files.isEmpty)
        #expect(UploadSQL.statements == files, "the embedded statements differ from Statements/*.sql")
    }

    @Test func theMultiRowInsertHasRowsPerInsertRows() {
        let text = UploadSQL.statement("insert_outbox_lines")
        #expect(text.matches(of: /\(\?, \?\)/).count == UploadOutbox.rowsPerInsert)
    }

    @Test func thePushSelectListsTheFieldColumnsInTheOrderPushDecodesThem() {
        let code = EventLineWriter.selectSQL.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(
            separator: " ")
        let list = code.firstMatch(of: /\bname,\s*([a-z_,\s]+?)\s*FROM/)?.1 ?? ""
        let columns = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(columns == EventColumns.fields.map(\.column) + ["extra", "rowid"])
        #expect(EventLineWriter.rowidColumn == Int32(4 + EventColumns.fields.count + 1))
    }

    @Test func aNewOutboxRecordsTheUploadersSchemaInItsOwnLedger() throws {
        let folder = TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        _ = try UploadOutbox(path: path, maximumBytes: 1 << 20)
        let connection = try SQLiteConnection(path: path, create: false)
        #expect(try connection.scalarInt("SELECT max(version) FROM upload_schema_migrations") == 1)
        #expect(try connection.scalarInt("PRAGMA user_version") == Int64(EventStore.latestSchemaVersion))
        #expect(
            try connection.scalarInt("SELECT max(version) FROM schema_migrations")
                == Int64(EventStore.latestSchemaVersion))
    }

    @Test func anOutboxWhoseUploadSchemaIsNewerIsRefusedAndLeftUntouched() throws {
        let folder = TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        _ = try UploadOutbox(path: path, maximumBytes: 1 << 20)
        do {
            let connection = try SQLiteConnection(path: path, create: false)
            try connection.execute(
                "INSERT INTO upload_schema_migrations (version, name, applied_at) VALUES (99, 'future', 'now')")
        }
        let error = #expect(throws: UploadError.self) {
            _ = try HTTPEventSink(.init(collector: URL(string: "http://127.0.0.1:9")!, writeKey: "k", outboxPath: path))
        }
        #expect(error?.kind == .store)
        #expect(error?.message.contains("upload_schema_migrations version 99") == true)
    }
}
