import EmbeddedSQLFiles
import Foundation
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import EventUpload
@testable import SQLiteSupport

/// What the uploader embeds (the EmbedSQL plugin's `GeneratedSQL` of EventUpload) is every `.sql` file of its
/// folders, byte for byte, and its schema is recorded apart from SQLiteEventStore's.
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
        let list = code.firstMatch(of: /\bname,\s*([a-z_(),\s]+?)\s*FROM/)?.1 ?? ""
        let columns = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(columns == EventColumns.fields.map(\.column) + ["extra", "rowid", "alstats_unpack(packed)"])
        #expect(EventLineWriter.packedColumn == EventLineWriter.rowidColumn + 1)
        #expect(EventLineWriter.rowidColumn == Int32(3 + EventColumns.fields.count + 1))
    }

    @Test func aNewOutboxHasTheUploadersSchemaOnlyRecordedInItsOwnLedger() throws {
        let folder = TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        _ = try UploadOutbox(path: path, maximumBytes: 1 << 20)
        let connection = try SQLiteConnection(path: path, create: false)
        #expect(
            try connection.scalarInt("SELECT max(version) FROM upload_schema_migrations")
                == Int64(UploadSQL.migrator.latestVersion))
        #expect(try connection.scalarInt("PRAGMA user_version") == 0)
        #expect(try !connection.hasTable("schema_migrations"))
        #expect(try !connection.hasTable("events"))
    }

    /// A new outbox opened as a store afterwards (`alstats report` on a device's file): the store's migrations that
    /// made the uploader's tables are recorded without being run, and every row of the uploader's tables is kept.
    @Test func aNewOutboxOpensAsAStoreAndKeepsItsTables() throws {
        let folder = TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        do {
            let outbox = try UploadOutbox(path: path, maximumBytes: 1 << 20)
            try outbox.append(numberedEvents(5))
            _ = try outbox.commit(losses: [.bufferFull: 2])
            try outbox.close()
        }
        let store = try SQLiteEventStore(path: path)
        #expect(try store.schemaVersion == SQLiteEventStore.latestSchemaVersion)
        #expect(try store.completeness()["dropped"]?["buffer_full"] == 2)
        let connection = try SQLiteConnection(path: path, create: false)
        #expect(try connection.scalarInt("SELECT events FROM upload_outbox_size") == 5)
        #expect(try connection.scalarInt("SELECT count(*) FROM upload_outbox") == 5)
        let outbox = try UploadOutbox(path: path, maximumBytes: 1 << 20)
        #expect(try outbox.pendingCount() == 5)
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
            _ = try HTTPEventSink(
                .init(collector: URL(string: "http://127.0.0.1:9")!, writeKey: "k", outboxPath: path),
                transport: ScriptedTransport([]))
        }
        #expect(error?.kind == .store)
        #expect(error?.message.contains("upload_schema_migrations version 99") == true)
    }
}
