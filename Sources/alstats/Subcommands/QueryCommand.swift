import ArgumentParser
import EventReport
import EventStoreInterface
import Foundation
import StoreOpening

extension ALStatsCommand {
    /// `alstats query`: runs one of the embedded `Queries/NAME.sql` against the database.
    struct QueryCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "query",
            abstract: "Run one of the bundled SQL queries (Queries/NAME.sql).",
            discussion: """
                Each query is a plain SQL file with a header comment; in the source tree, \
                `sqlite3 alstats.sqlite < Queries/NAME.sql` runs the same SQL (unbound parameters mean "no filter"). Parameters are given without their colon; \
                times are ms since the Unix epoch.

                Examples:
                  alstats query --list
                  alstats query failure_reasons
                  alstats query daily_funnel --param since=1763683200000 --format csv
                """
        )

        @OptionGroup var database: DatabaseOptions

        @Argument(help: "The query's name (see --list).")
        var name: String?

        @Flag(help: "List the queries with their one-line descriptions.")
        var list = false

        @Option(
            name: .customLong("param"),
            help: ArgumentHelp("A parameter, key=value (repeatable).", valueName: "key=value"))
        var parameters: [String] = []

        @Option(help: "Output format: table, json, csv, markdown or html.")
        var format: ReportFormat = .table

        /// The columns a table fits: a terminal's own when it is wider than 100, else 100.
        static func tableWidth() -> Int {
            var size = winsize()
            guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return 100 }
            return max(100, Int(size.ws_col))
        }

        func validate() throws {
            if list { return }
            guard let name else { throw ValidationError("name a query, or use --list to see them") }
            guard QueryCatalog.query(named: name) != nil else {
                throw ValidationError("there is no query '\(name)'; `alstats query --list` shows them")
            }
            for parameter in parameters where !parameter.contains("=") || parameter.hasPrefix("=") {
                throw ValidationError("--param '\(parameter)' is not key=value")
            }
        }

        func run() async throws {
            if list {
                let queries = QueryCatalog.all
                let width = queries.map(\.name.count).max() ?? 0
                for query in queries {
                    print(query.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + query.summary)
                }
                return
            }
            try await reportingFailuresAsync {
                guard let name else { return }
                var values: [String: String] = [:]
                for parameter in parameters {
                    let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    values[String(parts[0])] = String(parts[1])
                }
                let store = try await database.openBackend(.read)
                guard let query = QueryCatalog.query(named: name, dialect: store.reports.dialect) else { return }
                let result: QueryResult
                do {
                    result = try await store.reports.runQuery(query, parameters: values)
                } catch let error as QueryError {
                    throw CLIFailure(ExitStatus.usage, error.description)
                } catch let error as StoreError {
                    throw CLIFailure(error)
                }
                try await store.finish()
                FileHandle.standardOutput.write(Data(result.render(format, width: QueryCommand.tableWidth()).utf8))
            }
        }
    }
}
