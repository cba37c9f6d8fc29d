import ArgumentParser

/// The `alstats` command: App Links analytics from the command line.
///
/// Its subcommands are nested types (`ALStatsCommand.ReportCommand`, as swift-argument-parser's
/// `Examples/math` nests them), one per file in `Subcommands/`; what several share is in `Options/`.
@main
struct ALStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alstats",
        abstract: "App Links analytics: measurement events into SQLite, reports out.",
        discussion: """
            Examples:
              alstats demo                       simulated traffic through the real library, then the report
              alstats ingest events.ndjson       import NDJSON events
              alstats report --since 2025-11-01  the report of the stored events
              alstats push --to https://stats.example.com   send the events a collector has not acknowledged
              alstats inspect 'myapp://item?al_applink_data=...'
            """,
        version: ALStatsVersion.current,
        subcommands: subcommands
    )

    #if !Server
    /// The core-only build (Package.swift) has no server: no `serve`.
    static let serverSubcommands: [any ParsableCommand.Type] = []
    #else
    static let serverSubcommands: [any ParsableCommand.Type] = [ServeCommand.self]
    #endif

    static let subcommands: [any ParsableCommand.Type] =
        [
            DemoCommand.self, ReportCommand.self, QueryCommand.self, IngestCommand.self, ExportCommand.self,
            BackupCommand.self, RestoreCommand.self, MigrateCommand.self, PackCommand.self, PushCommand.self,
        ] + serverSubcommands + [Inspect.self, Resolve.self, Navigate.self, LinksCommand.self]
}

/// The version `alstats --version` prints.
enum ALStatsVersion {
    static let current = "0.1.0"
}
