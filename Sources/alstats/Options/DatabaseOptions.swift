import ArgumentParser
import Foundation

/// `--database PATH|URL`, shared by every command that touches a database: an SQLite file, or a PostgreSQL
/// URL (``StoreLocation``; opened by ``openBackend(_:)``).
///
/// The location is, in order: the option, `$ALSTATS_DATABASE`, `alstats.sqlite` in the current directory.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The SQLite database file, or a postgres:// URL (default: $ALSTATS_DATABASE, else alstats.sqlite).",
            valueName: "path|url"))
    var database: String?

    /// The database path or URL to use.
    var path: String {
        if let database, !database.isEmpty { return database }
        if let environment = ProcessInfo.processInfo.environment["ALSTATS_DATABASE"], !environment.isEmpty {
            return environment
        }
        return "alstats.sqlite"
    }
}
