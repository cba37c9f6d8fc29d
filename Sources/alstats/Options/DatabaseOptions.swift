import ArgumentParser
import Foundation

/// `--database PATH`, shared by every command that touches a database.
///
/// The path is, in order: the option, `$ALSTATS_DATABASE`, `alstats.sqlite` in the current directory.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The SQLite database file (default: $ALSTATS_DATABASE, else alstats.sqlite).", valueName: "path"))
    var database: String?

    /// The database path to use.
    var path: String {
        if let database, !database.isEmpty { return database }
        if let environment = ProcessInfo.processInfo.environment["ALSTATS_DATABASE"], !environment.isEmpty {
            return environment
        }
        return "alstats.sqlite"
    }
}
