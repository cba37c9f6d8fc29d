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
    /// The core-only build (Package.swift) has no server: no `serve`; and no AsyncHTTPClient: no `check`.
    static let serverSubcommands: [any ParsableCommand.Type] = []
    static let checkSubcommands: [any ParsableCommand.Type] = []
    #else
    static let serverSubcommands: [any ParsableCommand.Type] = [ServeCommand.self]
    static let checkSubcommands: [any ParsableCommand.Type] = [CheckCommand.self]
    #endif

    static let subcommands: [any ParsableCommand.Type] =
        [
            DemoCommand.self, ReportCommand.self, AlertsCommand.self, QueryCommand.self, IngestCommand.self,
            ExportCommand.self,
            MigrateCommand.self, PackCommand.self, PruneCommand.self, PushCommand.self,
        ] + serverSubcommands + [Inspect.self, Resolve.self, Navigate.self] + checkSubcommands + [LinksCommand.self]
}

/// The version `alstats --version` prints.
enum ALStatsVersion {
    static let current = "0.1.0"
}
