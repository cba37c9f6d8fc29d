import EmbeddedSQLFiles
import SQLiteSupport

/// The uploader's SQL, embedded in the binary by the EmbedSQL plugin (Plugins/EmbedSQL): its schema from the
/// top-level `Migrations/upload/`, its statements from `Sources/EventUpload/Statements/`. A new `.sql` file needs no
/// line of code; `UploadSQLTests` holds the embedded text to the files.
enum UploadSQL {
    /// `Migrations/upload/NNNN_verb_object.sql`, in order.
    static let migrations: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.migrations)

    /// `Statements/NAME.sql`: the outbox's, the device losses' and the push cursor's statements.
    static let statements: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.statements)

    /// The table in which a database records the uploader's migrations (SQLiteEventStore keeps `PRAGMA user_version`
    /// and `schema_migrations` for its own).
    static let ledger = "upload_schema_migrations"

    /// The migrator of the uploader's schema.
    static var migrator: SchemaMigrator { SchemaMigrator(migrations: migrations, ledger: .table(ledger)) }

    /// The text of `Statements/NAME.sql`; a missing name is a programmer error caught by UploadSQLTests.
    static func statement(_ name: String) -> String {
        statements.text(of: name, index: "UploadSQL.statements")
    }
}
