import EventStoreInterface
import SQLiteSupport

extension SchemaMigrator {
    /// The store's migrator: the top-level `Migrations/`, recorded in `PRAGMA user_version` and `schema_migrations`.
    ///
    /// Migrations 0010, 0012 and 0015 made the tables that the uploader (module EventUpload) owns now and migrates
    /// itself (`Migrations/upload/`, recorded in `upload_schema_migrations`). On a file the uploader opened first (a
    /// device's outbox, then opened as a store by `alstats report`), those tables are the uploader's already: the
    /// three are recorded without being run. Everywhere else they run as released.
    package init() {
        self.init(
            migrations: EmbeddedSQL.migrations, ledger: .userVersion,
            handOver: HandOver(versions: [10, 12, 15], ledger: "upload_schema_migrations"))
    }
}
