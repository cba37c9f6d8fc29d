import ArgumentParser
import EventStore
import Foundation

extension ALStatsCommand {
    /// `alstats ingest FILE...`: imports NDJSON events into the database.
    struct IngestCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ingest",
            abstract: "Import NDJSON events (one per line) into the database.",
            discussion: """
                Each line is {"id":...,"name":...,"ts":...,"fields":{...}} (id optional). Invalid lines are reported \
                as file:line: reason and the valid ones are committed (exit status 65); with --strict nothing is \
                committed when any line is invalid. Events already stored (same id) are skipped, so ingesting a \
                file twice changes nothing. Secrets are redacted before they are stored.

                Example:
                  alstats ingest events.ndjson
                  alstats export --database old.sqlite | alstats ingest --database new.sqlite -
                """
        )

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "Commit all lines or none: any invalid line leaves the database unchanged.")
        var strict = false

        @Argument(help: ArgumentHelp("NDJSON files; - reads standard input.", valueName: "file"))
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError("give at least one NDJSON file, or - for standard input") }
        }

        func run() throws {
            try reportingFailures {
                for file in files where file != "-" && !FileManager.default.fileExists(atPath: file) {
                    throw CLIFailure(ExitStatus.noInput, "\(file): no such file: check the path")
                }
                let store = try database.openStore(create: true)
                let terminal = isatty(STDERR_FILENO) == 1
                let summary: IngestSummary
                do {
                    summary = try store.ingest(
                        files.map(IngestInput.init(path:)), options: IngestOptions(strict: strict),
                        onInvalidLine: { error in printError(error.description) },
                        progress: terminal
                            ? { progress in
                                FileHandle.standardError.write(
                                    Data("\rread \(progress.lines) lines, \(progress.bytes >> 20) MiB".utf8))
                            } : nil)
                } catch let error as StoreError {
                    throw CLIFailure(error)
                } catch let error as IngestError {
                    throw CLIFailure(error)
                }
                if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
                if summary.invalid > 0 {
                    let outcome =
                        summary.committed
                        ? "the \(summary.stored) new valid events were stored" : "nothing was stored (--strict)"
                    throw CLIFailure(
                        ExitStatus.dataError,
                        "\(summary.invalid) of \(summary.lines) lines were invalid; \(outcome): fix the lines above")
                }
                print("stored \(summary.stored) new events (\(summary.duplicates) already stored) in \(store.path)")
            }
        }
    }
}
