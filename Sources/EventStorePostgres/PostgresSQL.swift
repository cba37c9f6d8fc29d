import EmbeddedSQLFiles
import EventStoreInterface

/// The SQL files of EventStorePostgres, embedded in the binary as SQLiteEventStore's are: the EmbedSQL build plugin
/// (Plugins/EmbedSQL) generates `GeneratedSQL` from the top-level `Migrations/postgres/` and from
/// `Sources/EventStorePostgres/Statements/` on every build. `PostgresSQLTests` holds the embedded text to the files.
package enum PostgresSQL {
    /// The top-level `Migrations/postgres/NNNN_verb_object.sql`, in order.
    package static let migrations: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.migrations)

    /// `Sources/EventStorePostgres/Statements/NAME.sql`, by name.
    package static let statements: [EmbeddedSQLFile] = .init(generated: GeneratedSQL.statements)

    /// The text of `Statements/NAME.sql`; a missing name is a programmer error caught by PostgresSQLTests.
    package static func statement(_ name: String) -> String {
        statements.text(of: name, index: "PostgresSQL.statements")
    }

    /// The statements of a file of several (a migration, a rebuild): comment lines dropped, split at each `;` that
    /// ends a line outside a body quoted with `$$` (a `DO` block's or a function's, whose own statements end lines
    /// too). Our files hold no `;` at a line's end inside a string.
    package static func split(_ text: String) -> [String] {
        var statements: [String] = []
        var current: [Substring] = []
        var inBody = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingPrefix(while: { $0 == " " })
            if trimmed.hasPrefix("--") { continue }
            if line.split(separator: "$$", omittingEmptySubsequences: false).count % 2 == 0 { inBody.toggle() }
            if line.hasSuffix(";"), !inBody {
                current.append(line.dropLast())
                statements.append(current.joined(separator: "\n"))
                current.removeAll()
            } else {
                current.append(line)
            }
        }
        statements.append(current.joined(separator: "\n"))
        return statements.filter { !$0.allSatisfy(\.isWhitespace) }
    }
}
