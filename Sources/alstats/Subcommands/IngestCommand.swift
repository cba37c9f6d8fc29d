import ArgumentParser
import EventIngest
import EventStoreInterface
import EventStoreSQLite
import Foundation
import MeasurementEvents
import StoreOpening

extension ALStatsCommand {
    /// `alstats ingest FILE...`: imports NDJSON events into the database.
    struct IngestCommand: AsyncParsableCommand {
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

        @Flag(
            name: .customLong("no-pack"),
            help: ArgumentHelp(
                "Keep a new SQLite file's long fields plain instead of packing them past 4,096 events.",
                discussion: """
                    Its views then read in any SQLite tool without the AlstatsSQLite extension, at about twice the \
                    bytes on disk (docs/sql.md). A file packed already stays packed.
                    """)
        )
        var noPack = false

        /// `--pack`, the default since files are packed by default; still taken, so that scripts keep working.
        @Flag(help: .hidden) var pack = false

        @Argument(help: ArgumentHelp("NDJSON files; - reads standard input.", valueName: "file"))
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError("give at least one NDJSON file, or - for standard input") }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                for file in files where file != "-" && !FileManager.default.fileExists(atPath: file) {
                    throw CLIFailure(ExitStatus.noInput, "\(file): no such file: check the path")
                }
                if noPack || pack, case .postgres = try database.location {
                    throw CLIFailure(
                        ExitStatus.usage,
                        "--no-pack and --pack are for SQLite files; leave them out for a PostgreSQL --database")
                }
                if noPack, pack { throw CLIFailure(ExitStatus.usage, "give --no-pack or --pack, not both") }
                let store = try await database.openBackend(.create, packFields: !noPack)
                let terminal = isatty(STDERR_FILENO) == 1
                let refusedBefore = try await Self.refused(by: store)
                let summary = try await ingest(into: store.ingester, terminal: terminal)
                let refused = min(
                    summary.duplicates, try await Self.refused(by: store).map { $0 - (refusedBefore ?? 0) } ?? 0)
                try await store.finish()
                if terminal { FileHandle.standardError.write(Data("\n".utf8)) }
                if let unfinished = summary.unfinished { printError("alstats ingest: warning: \(unfinished)") }
                if summary.nearMissFields > 0 { printError(Self.nearMisses(in: summary)) }
                if summary.invalid > 0 {
                    let outcome =
                        summary.committed
                        ? "\(String(counting: summary.stored, "new valid event")) stored"
                        : "nothing was stored (--strict)"
                    let verb = summary.invalid == 1 ? "was" : "were"
                    throw CLIFailure(
                        ExitStatus.dataError,
                        "\(summary.invalid) of \(String(counting: summary.lines, "line")) \(verb) invalid; \(outcome): "
                            + "fix the lines above")
                }
                let older = refused > 0 ? ", \(refused) older than the retention horizon, refused" : ""
                print(
                    "stored \(String(counting: summary.stored, "new event")) (\(summary.duplicates - refused) already "
                        + "stored\(older)) in \(store.backend.location)")
            }
        }

        /// The events the store's writers refused as older than its retention horizon so far (completeness's
        /// `before_retention`), or `nil` when it was never pruned: the ingest counts them among the events it did
        /// not store, which were not all duplicates then.
        static func refused(by store: OpenedStore) async throws(CLIFailure) -> Int? {
            do throws(StoreError) {
                guard try await store.retention.rawEventsSince() != nil else { return nil }
                return try await store.backend.completeness()["rejected"]?[DropReason.beforeRetention.rawValue] ?? 0
            } catch {
                throw CLIFailure(error)
            }
        }

        /// The warning about field names that look misspelt: how many, and the first few.
        static func nearMisses(in summary: IngestSummary) -> String {
            let count = summary.nearMissFields
            var lines = [
                "alstats ingest: warning: \(String(counting: count, "field")) \(count == 1 ? "has a name" : "have names") "
                    + "close to a catalogue name, stored among the extras as read (docs/events.md):"
            ]
            lines += summary.firstNearMissFields.map { "  \($0)" }
            let more = count - summary.firstNearMissFields.count
            if more > 0 { lines.append("  and \(more) more") }
            return lines.joined(separator: "\n")
        }

        /// Ingests the files with the store's ingest (``NDJSONIngester``): SQLite's own tuned one, the generic one on
        /// PostgreSQL, with the same counts.
        private func ingest(into ingester: any NDJSONIngester, terminal: Bool) async throws -> IngestSummary {
            let inputs = files.map(IngestInput.init(path:))
            let options = IngestOptions(strict: strict)
            let onInvalidLine = { (error: IngestError) in printError(error.description) }
            let progress: ((IngestSummary) -> Void)? =
                terminal
                ? { progress in
                    FileHandle.standardError.write(
                        Data("\rread \(String(counting: progress.lines, "line")), \(progress.bytes >> 20) MiB".utf8))
                } : nil
            do {
                return try await ingester.ingest(
                    inputs, options: options, onInvalidLine: onInvalidLine, progress: progress)
            } catch let error as StoreError {
                throw CLIFailure(error)
            } catch let error as IngestError {
                throw CLIFailure(error)
            }
        }
    }
}
