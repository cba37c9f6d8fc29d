import ArgumentParser
import Foundation

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

    /// Runs the command line as ArgumentParser does, but for its errors: a usage error (an unknown option, a value
    /// that cannot be read, a `validate()` refusal) is one line on standard error starting `alstats:` and naming the
    /// help to read, as every other error of the CLI (docs/cli.md, "Output"), with exit status 64. Help, the version
    /// and the statuses of errors already reported (``CLIFailure``) are ArgumentParser's.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            guard code != .success, !(error is ExitCode) else { exit(withError: error) }
            let line = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            printError("alstats: \(lowercasedFirst(line)) (`\(helpCommand())` shows the options)")
            Foundation.exit(code.rawValue)
        }
    }

    /// `alstats SUBCOMMAND --help` for the subcommands named first on the command line, `alstats --help` without.
    static func helpCommand(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> String {
        var names = ["alstats"]
        var level: [any ParsableCommand.Type] = subcommands
        for argument in arguments {
            guard let command = level.first(where: { $0._commandName == argument }) else { break }
            names.append(argument)
            level = command.configuration.subcommands
        }
        return (names + ["--help"]).joined(separator: " ")
    }

    /// ArgumentParser's message with its first letter lowercased, as the CLI's other errors read.
    private static func lowercasedFirst(_ line: String) -> String {
        guard let first = line.first, first.isUppercase, line.dropFirst().first?.isLowercase ?? true else {
            return line
        }
        return first.lowercased() + line.dropFirst()
    }

    static let subcommands: [any ParsableCommand.Type] =
        [
            DemoCommand.self, ReportCommand.self, AlertsCommand.self, QueryCommand.self, IngestCommand.self,
            ExportCommand.self, BackupCommand.self, RestoreCommand.self, MigrateCommand.self, PackCommand.self,
            PruneCommand.self, PushCommand.self,
        ] + serverSubcommands + [Inspect.self, Resolve.self, Navigate.self] + checkSubcommands + [LinksCommand.self]
}

/// The version `alstats --version` prints.
enum ALStatsVersion {
    static let current = "0.1.0"
}
