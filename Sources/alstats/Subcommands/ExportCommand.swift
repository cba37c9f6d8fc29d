import ArgumentParser
import EventStoreInterface
import Foundation
import MeasurementEvents
import StoreOpening

extension ALStatsCommand {
    /// `alstats export`: the stored events as NDJSON with ids, to standard output.
    struct ExportCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the stored events as NDJSON (with ids) to standard output.",
            discussion: """
                T is an RFC 3339 timestamp or a YYYY-MM-DD date (midnight UTC). `alstats ingest` reads the output \
                back exactly.

                Example:
                  alstats export --since 2025-11-01 --until 2025-12-01 > november.ndjson
                """
        )

        @OptionGroup var database: DatabaseOptions

        @Option(help: ArgumentHelp("Only events at or after T.", valueName: "T"))
        var since: String?

        @Option(help: ArgumentHelp("Only events before T.", valueName: "T"))
        var until: String?

        func validate() throws {
            for (name, value) in [("--since", since), ("--until", until)] {
                if let value, EventTime.milliseconds(timeOrDate: value) == nil {
                    throw ValidationError("\(name) '\(value)' is not an RFC 3339 timestamp or a YYYY-MM-DD date")
                }
            }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                let store = try await database.openBackend(.read)
                let upper = until.flatMap(EventTime.milliseconds(timeOrDate:)) ?? .max
                do {
                    // Of a pruned store, the raw events since its horizon, on either backend: not the install
                    // path's events a prune keeps before it (in `events` on SQLite, in `pruned_install_events` on
                    // PostgreSQL), as `alstats backup` does.
                    let horizon = try await store.retention.rawEventsSince() ?? .min
                    let lower = max(since.flatMap(EventTime.milliseconds(timeOrDate:)) ?? .min, horizon)
                    try await store.backend.exportNDJSON(since: lower, until: upper) { chunk in
                        try FileHandle.standardOutput.write(contentsOf: chunk)
                    }
                } catch let error as StoreError {
                    throw CLIFailure(error)
                } catch {
                    throw CLIFailure(ExitStatus.ioError, "cannot write to standard output: \(error)")
                }
                try await store.finish()
            }
        }
    }
}
