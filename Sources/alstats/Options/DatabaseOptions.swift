import ArgumentParser
import Foundation

/// What `--database` names, however a command declares the option: an SQLite file, or a PostgreSQL URL
/// (``StoreLocation``; opened by ``openBackend(_:packFields:)``).
///
/// The location is, in order: the option, `$ALSTATS_DATABASE`, `alstats.sqlite` in the current directory.
protocol DatabaseChoice {
    /// The option's value; `nil` when it was not given.
    var database: String? { get }
}

extension DatabaseChoice {
    /// The database path or URL to use.
    var path: String {
        if let database, !database.isEmpty { return database }
        if let environment = ProcessInfo.processInfo.environment["ALSTATS_DATABASE"], !environment.isEmpty {
            return environment
        }
        return "alstats.sqlite"
    }
}

/// `--database PATH|URL`, shared by every command that touches a database of either backend.
struct DatabaseOptions: ParsableArguments, DatabaseChoice {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The SQLite database file, or a postgres:// URL (default: $ALSTATS_DATABASE, else alstats.sqlite).",
            valueName: "path|url"))
    var database: String?
}

/// `--database PATH` of the commands that work on an SQLite file only (`push`, whose cursor and outbox are SQLite's;
/// `demo`): their help offers no PostgreSQL URL, and one given is refused (``sqlitePath(for:)``).
struct SQLiteDatabaseOptions: ParsableArguments, DatabaseChoice {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The SQLite database file (default: $ALSTATS_DATABASE, else alstats.sqlite).", valueName: "path"))
    var database: String?
}
