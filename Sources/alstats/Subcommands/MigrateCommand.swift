import ArgumentParser
import EventStoreInterface
import EventStoreSQLite
import StoreOpening

extension ALStatsCommand {
    /// `alstats migrate`: creates the database when needed, applies pending migrations, prints the version.
    struct MigrateCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Apply pending schema migrations and print the schema version.",
            discussion: """
                Creates the database when it does not exist. A database written by a newer alstats is refused.

                Example:
                  alstats migrate --database alstats.sqlite
                  schema version \(SQLiteEventStore.latestSchemaVersion)
                """
        )

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            try await reportingFailuresAsync {
                let store = try await database.openBackend(.create)
                do throws(StoreError) {
                    print("schema version \(try await store.backend.schemaVersion)")
                } catch {
                    throw CLIFailure(error)
                }
                try await store.finish()
            }
        }
    }
}
