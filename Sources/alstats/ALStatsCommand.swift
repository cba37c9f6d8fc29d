import ArgumentParser

/// The `alstats` command: App Links analytics from the command line.
@main
struct ALStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alstats",
        abstract: "App Links analytics: measurement events into SQLite, reports out.",
        discussion: """
            Examples:
              alstats --version
            """,
        version: ALStatsVersion.current,
        subcommands: [
            ReportCommand.self, QueryCommand.self, IngestCommand.self, ExportCommand.self, MigrateCommand.self,
            Inspect.self, Resolve.self, Navigate.self,
        ]
    )
}

/// The version `alstats --version` prints.
enum ALStatsVersion {
    static let current = "0.1.0"
}
