import ArgumentParser
import EventStoreInterface
import Foundation
import MeasurementEvents
import StoreOpening

extension ALStatsCommand {
    /// `alstats prune`: deletes the raw events older than a window, keeping the rollups (docs/cli.md, "alstats
    /// prune"; ``EventRetention``).
    struct PruneCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Delete raw events older than a window; the report keeps their history.",
            discussion: """
                Deletes the raw events before the start of the UTC day --keep ago (so it keeps at least the \
                window, and up to a day more), with their ids; the rollups the report reads keep every count, so \
                a report of whole 15-minute buckets is the same before and after. From then on every writer \
                refuses an event older than that day (counted in completeness as before_retention), and the \
                report says from when raw events exist. A writer beside the prune waits for one of its \
                transactions at most. An SQLite file gives the space back as it goes; one made before this alstats \
                needs --vacuum once. On PostgreSQL whole months are dropped.

                Examples:
                  alstats prune --keep 90d
                  pruned alstats.sqlite: 2471232 raw events before 2025-08-23T00:00:00.000Z deleted in 104 transactions; ...
                  alstats prune --keep 52w --dry-run --database postgres://alstats@db/alstats
                """
        )

        @OptionGroup var database: DatabaseOptions

        @Option(
            help: ArgumentHelp(
                "How long raw events are kept: hours, days or weeks (12h, 90d, 52w).", valueName: "window"))
        var keep: String

        @Flag(name: .customLong("dry-run"), help: "Say what would be deleted; change nothing.")
        var dryRun = false

        @Flag(
            help: """
                SQLite: rebuild the whole file afterwards (VACUUM), which a file made before incremental vacuum \
                needs once to give space back. It holds writers for as long as copying the file takes.
                """)
        var vacuum = false

        func validate() throws {
            guard RetentionPeriod(keep) != nil else {
                throw ValidationError(
                    "--keep must be a whole number of hours, days or weeks, at least 1h (12h, 90d, 52w), not \(keep)")
            }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                guard let period = RetentionPeriod(keep) else { throw CLIFailure(ExitStatus.usage, "--keep \(keep)") }
                if vacuum, case .postgres = try database.location {
                    throw CLIFailure(
                        ExitStatus.usage,
                        "--vacuum is for SQLite files: PostgreSQL gives back the months it drops by itself")
                }
                let store = try await database.openBackend(.existing)
                let cutoff = period.cutoff(now: SystemEventClock().nowMilliseconds())
                let summary: PruneSummary
                do throws(StoreError) {
                    summary = try await store.retention.prune(
                        before: cutoff, options: PruneOptions(dryRun: dryRun, fullVacuum: vacuum))
                } catch {
                    throw CLIFailure(error)
                }
                try await store.finish()
                for line in Self.lines(summary, location: store.backend.location, dryRun: dryRun) { print(line) }
                for deferred in summary.deferred { printError("alstats prune: left for the next prune: \(deferred)") }
                if case .needsFullVacuum(let free) = summary.space, free > 0 {
                    printError(
                        "alstats prune: note: \(store.backend.location) was made before incremental vacuum, so its "
                            + "\(free) free bytes are reused by new events but not given back; run alstats prune "
                            + "--keep \(keep) --vacuum once to rebuild it (it needs as much free disk as the file)")
                }
            }
        }

        /// What the prune did (or would do), a line each.
        static func lines(_ summary: PruneSummary, location: String, dryRun: Bool) -> [String] {
            let events = String(counting: summary.events, "raw event")
            let cutoff = EventTime.rfc3339(milliseconds: summary.rawEventsSince)
            var lines = [
                dryRun
                    ? "would prune \(location): \(events) before \(cutoff) (nothing was changed)"
                    : "pruned \(location): \(events) before \(cutoff) deleted in "
                        + "\(String(counting: summary.transactions, "transaction")); raw events since \(cutoff)"
            ]
            if !summary.partitionsDropped.isEmpty {
                lines.append(
                    (dryRun ? "months to drop: " : "months dropped: ")
                        + summary.partitionsDropped.joined(separator: ", "))
            }
            if case .returned(let bytes) = summary.space {
                lines.append("\(bytes) bytes given back to the file system")
            }
            return lines
        }
    }
}
