import ArgumentParser
import EventReport
import EventStoreInterface
import Foundation
import MeasurementEvents

extension ALStatsCommand {
    /// `alstats alerts`: the causes of a window's alerts, exit 3 when there are some (docs/cli.md).
    struct AlertsCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "alerts",
            abstract: "Print the alerts of a window, one per cause; exit 3 when there are some.",
            discussion: """
                Compares the window (by default the last 24 hours) with the window of the same length just before, \
                by the rule of `alstats report --compare previous`, and prints the causes: each slice whose success \
                fell, with the alerts it explains under it. Exit 0 when there are none and 3 when there are some, so \
                that a cron job or a CI step can act on it. T is an RFC 3339 timestamp or a YYYY-MM-DD date \
                (midnight UTC).

                Examples:
                  alstats alerts
                  alstats alerts --since 2025-11-10 --until 2025-11-17 --format json
                  alstats alerts --database postgres://alstats@db.example.com/alstats || notify-team
                """
        )

        /// The window without `--since` and `--until`: the 24 hours ending now.
        static let defaultSpan: Int64 = 86_400_000

        @OptionGroup var database: DatabaseOptions

        @Option(help: ArgumentHelp("The window's start (inclusive; default: 24 hours before its end).", valueName: "T"))
        var since: String?

        @Option(help: ArgumentHelp("The window's end (exclusive; default: now).", valueName: "T"))
        var until: String?

        @Option(help: "Output format: text (for people) or json (the alerts of docs/cli.md).")
        var format: DebuggerFormat = .text

        func validate() throws {
            _ = try window()
        }

        /// The window asked for, with both bounds.
        private func window() throws -> ReportQuery {
            let query = ReportQuery(
                since: try ReportFilterOptions.time("--since", since, in: .utc),
                until: try ReportFilterOptions.time("--until", until, in: .utc))
            do throws(ReportComparison.WindowError) {
                let now = Int64(Date().timeIntervalSince1970 * 1_000)
                return try ReportComparison.previous.window(for: query, now: now, span: Self.defaultSpan)
            } catch {
                throw ValidationError(error.description)
            }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                let query = try window()
                let store = try await database.openBackend(.read)
                let report: Report
                do throws(StoreError) {
                    report = try await store.reports.readReport(for: query, comparison: .previous)
                } catch {
                    throw CLIFailure(error)
                }
                try await store.finish()
                let alerts = report.alerts ?? []
                switch format {
                case .json: print(Self.json(report, alerts: alerts).jsonText())
                case .text: print(Self.text(report, alerts: alerts).joined(separator: "\n"))
                }
                if !alerts.isEmpty { throw ExitCode(ExitStatus.found) }
            }
        }

        /// `{"window": {"since", "until"}, "previous": {"since", "until"}, "alerts": [...]}`.
        static func json(_ report: Report, alerts: [Report.Alert]) -> JSONValue {
            func window(_ window: Report.Window?) -> JSONValue {
                func time(_ value: Int64?) -> JSONValue {
                    value.map { .string(EventTime.rfc3339(milliseconds: $0)) } ?? .null
                }
                return .object(["since": time(window?.since), "until": time(window?.until)])
            }
            return .object([
                "window": window(report.window), "previous": window(report.previous?.window),
                "alerts": .array(alerts.map(\.json)),
            ])
        }

        /// A line saying the window and how many causes, then each cause and the alerts it explains under it.
        static func text(_ report: Report, alerts: [Report.Alert]) -> [String] {
            let windows = "\(span(report.window)), against \(span(report.previous?.window))"
            guard !alerts.isEmpty else { return ["no alerts: nothing fell significantly in \(windows)"] }
            var lines = ["\(String(counting: alerts.count, "alert")) in \(windows):"]
            for cause in alerts {
                lines.append("- \(cause.sliceDescription): \(cause.summary)")
                lines += cause.explains.map { "  \u{21B3} \($0.sliceDescription): \($0.summary)" }
            }
            if alerts.contains(where: { !$0.explains.isEmpty }) {
                lines.append(
                    "\u{21B3} explained by the cause above: without its navigations, the slice no longer falls")
            }
            return lines
        }

        private static func span(_ window: Report.Window?) -> String {
            guard let since = window?.since, let until = window?.until else { return "the previous window" }
            return "events from \(EventTime.rfc3339(milliseconds: since)) to \(EventTime.rfc3339(milliseconds: until))"
        }
    }
}
