import ArgumentParser
import EventStore

extension ALStatsCommand {
    /// `alstats migrate`: creates the database when needed, applies pending migrations, prints the version.
    struct MigrateCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Apply pending schema migrations and print the schema version.",
            discussion: """
                Creates the database when it does not exist. A database written by a newer alstats is refused.

                Example:
                  alstats migrate --database alstats.sqlite
                  schema version 8
                """
        )

        @OptionGroup var database: DatabaseOptions

        func run() throws {
            try reportingFailures {
                let store = try database.openStore(create: true)
                do throws(StoreError) {
                    print("schema version \(try store.schemaVersion)")
                } catch {
                    throw CLIFailure(error)
                }
            }
        }
    }
}
