/// One `.sql` file of the repository, carried in the binary by `scripts/embed-sql` (see ``EmbeddedSQL``).
package struct EmbeddedSQLFile: Sendable, Hashable {
    /// The file name, for example `0001_create_events.sql`.
    package var name: String
    /// The file's exact text.
    package var text: String

    /// The name without `.sql`.
    package var stem: String { name.hasSuffix(".sql") ? String(name.dropLast(4)) : name }

    /// The leading number of a migration file name (`0001_create_events.sql` → 1), or `nil`.
    var migrationVersion: Int? { Int(name.prefix(while: { $0.isNumber })) }
}

extension EmbeddedSQL {
    /// The text of `Statements/NAME.sql`; a missing name is a programmer error caught by EmbeddedSQLTests.
    package static func statement(_ name: String) -> String {
        guard let file = statements.first(where: { $0.stem == name }) else {
            preconditionFailure("Statements/\(name).sql is not embedded: run scripts/embed-sql")
        }
        return file.text
    }
}
