import EmbeddedSQLFiles
import EventStoreInterface

/// The SQL files of SQLiteEventStore, embedded in the binary, so that a lone copied `alstats` binary still migrates.
///
/// The EmbedSQL build plugin (Plugins/EmbedSQL) generates `GeneratedSQL` from the folders on every build: the
/// schema from the top-level `Migrations/` and the write path's statements from `Sources/EventStoreSQLite/Statements/`.
/// A new `.sql` file needs no line of code; `EmbeddedSQLTests` holds the embedded text to the files.
package enum EmbeddedSQL {
    /// The top-level `Migrations/NNNN_verb_object.sql`, in order.
    package static let migrations: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.migrations)

    /// `Sources/EventStoreSQLite/Statements/NAME.sql`: the write path's and export's own statements, by name.
    static let statements: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.statements)

    /// The text of `Statements/NAME.sql`; a missing name is a programmer error caught by EmbeddedSQLTests.
    package static func statement(_ name: String) -> String {
        statements.text(of: name, index: "EmbeddedSQL.statements")
    }
}
