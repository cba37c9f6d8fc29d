/// One `.sql` file of the repository, carried in the binary by `scripts/embed-sql` (see ``EmbeddedSQL``).
struct EmbeddedSQLFile: Sendable, Hashable {
    /// The file name, for example `0001_create_events.sql`.
    var name: String
    /// The file's exact text.
    var text: String

    /// The name without `.sql`.
    var stem: String { name.hasSuffix(".sql") ? String(name.dropLast(4)) : name }

    /// The leading number of a migration file name (`0001_create_events.sql` → 1), or `nil`.
    var migrationVersion: Int? { Int(name.prefix(while: { $0.isNumber })) }
}
