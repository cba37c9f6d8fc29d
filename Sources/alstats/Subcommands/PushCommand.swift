import ArgumentParser
import EventStoreInterface
import EventStoreSQLite
import EventUpload
import Foundation
import MeasurementEvents
import SQLiteSupport

extension ALStatsCommand {
    /// `alstats push --to URL`: sends the events of the database that the collector has not acknowledged yet.
    struct PushCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push",
            abstract: "Send the stored events a collector has not acknowledged yet (POST /v1/events).",
            discussion: """
                Events go oldest first, in gzip batches of at most 500 events and 512 KiB, with up to --in-flight \
                requests waiting for their receipts at once. The database keeps, per collector URL, a cursor of what \
                receipts answered, moved only past a contiguous run of answered batches, so a push that is killed or \
                fails resumes where it stopped; what was in flight is sent again and the collector counts it as \
                duplicates, never storing an event twice. A request without an answer within 15 s is retried. \
                Network errors, 408, 429 and 5xx are retried with exponential backoff (1 s doubling to 5 min, full \
                jitter, honouring Retry-After); 413 splits a batch; lines a receipt rejects are counted by reason \
                (upload_rejected:REASON) and not sent again.

                Exit status: 0 when every event is acknowledged, 69 when the collector stays unreachable for longer \
                than --give-up-after, 77 when it refuses the write key, 66 for a missing database.

                Example:
                  ALSTATS_WRITE_KEY=wk_... alstats push --to https://stats.example.com --give-up-after 30s
                """
        )

        @Option(help: ArgumentHelp("The collector: its base URL, or the full URL of its /v1/events.", valueName: "url"))
        var to: String

        @Option(help: ArgumentHelp("The write key (default: $ALSTATS_WRITE_KEY).", valueName: "key"))
        var writeKey: String?

        @OptionGroup var database: SQLiteDatabaseOptions

        @Option(
            help: ArgumentHelp(
                "Stop (exit 69) once the collector has been unreachable this long: 30s, 5m, 1h.", valueName: "duration")
        )
        var giveUpAfter = "5m"

        // 12: with the collector on the same host, 12 requests in flight pushed faster than 4 or 8, the collector
        // committing larger groups (docs/benchmarks.md, "upload").
        @Option(help: ArgumentHelp("How many requests may wait for their receipts at once (1 to 16).", valueName: "n"))
        var inFlight = 12

        func validate() throws {
            guard let url = URL(string: to), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
            else {
                throw ValidationError("--to '\(to)' is not an http or https URL, like https://stats.example.com")
            }
            guard PushCommand.duration(giveUpAfter) != nil else {
                throw ValidationError("--give-up-after '\(giveUpAfter)' is not a duration such as 30s, 5m or 1h")
            }
            guard (1...16).contains(inFlight) else {
                throw ValidationError("--in-flight \(inFlight) is not between 1 and 16")
            }
            guard key != nil else {
                throw ValidationError("give the collector's write key with --write-key or $ALSTATS_WRITE_KEY")
            }
        }

        /// The write key: the option, else `$ALSTATS_WRITE_KEY`.
        private var key: String? {
            if let writeKey, !writeKey.isEmpty { return writeKey }
            let environment = ProcessInfo.processInfo.environment["ALSTATS_WRITE_KEY"]
            return environment?.isEmpty == false ? environment : nil
        }

        /// `500ms`, `30s`, `5m`, `1h`, or plain seconds.
        static func duration(_ text: String) -> Duration? {
            let units: [(String, Int64)] = [("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000)]
            for (suffix, milliseconds) in units where text.hasSuffix(suffix) {
                guard let number = Int64(text.dropLast(suffix.count)), number >= 0, number < 1 << 40 else { return nil }
                return .milliseconds(number * milliseconds)
            }
            guard let seconds = Int64(text), seconds >= 0, seconds < 1 << 40 else { return nil }
            return .seconds(seconds)
        }

        func run() async throws {
            try await reportingFailuresAsync { try await push() }
        }

        private func push() async throws {
            let databasePath = try database.sqlitePath(for: "push")  // the outbox is SQLite's
            // Checks and migrates the file, with the CLI's messages. A push reads the store (its only writes are its
            // own cursor's rows), so it opens it as the other readers do: without SQLite's integrity check of the
            // whole file, which cost a push of 200,000 events 7% of its CPU; a damaged page it reads is an error.
            _ = try await database.openBackend(.read)
            let policy = UploadPolicy(giveUpAfter: PushCommand.duration(giveUpAfter))
            let lines: StoreEventLines
            do throws(SQLiteError) {
                lines = try StoreEventLines(path: databasePath)
            } catch {
                throw CLIFailure(ExitStatus.ioError, error.message)
            }
            let pusher: EventPusher
            do throws(UploadError) {
                pusher = try EventPusher(
                    source: lines, collector: URL(string: to)!, writeKey: key ?? "", policy: policy,
                    batchesInFlight: inFlight, transport: UploadTransports.platformDefault())
            } catch {
                throw CLIFailure(ExitStatus.ioError, error.message)
            }
            let terminal = isatty(STDERR_FILENO) == 1
            let total = pusher.status.pending
            var progress: (@Sendable (UploadStatus) -> Void)?
            if terminal {
                let events = String(counting: total, "event")
                progress = { status in printProgress("\rpush: \(total - status.pending) of \(events) answered") }
            }
            do {
                try await pusher.push(progress: progress)
            } catch {
                if terminal { printProgress("\n") }
                throw PushCommand.failure(error)
            }
            if terminal { printProgress("\n") }
            print(summary(pusher.status, rejected: (try? pusher.rejectedLines()) ?? [:]))
        }

        private func summary(_ status: UploadStatus, rejected: [DropReason: Int]) -> String {
            var text =
                "push: \(String(counting: status.accepted + status.duplicates, "event")) acknowledged by \(to) "
                + "(\(status.accepted) new, \(status.duplicates) already stored)"
            let now = status.dropped.values.reduce(0, +)
            if now > 0 {
                let reasons = status.dropped.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                text += ", \(now) rejected (\(reasons.joined(separator: ", ")))"
            }
            let ever = rejected.values.reduce(0, +)
            if ever > now { text += "; \(ever) rejected over every push to it" }
            return text
        }

        /// The exit status of an upload error: 77 for a refused key, 69 for an unreachable or misdirected collector.
        static func failure(_ error: UploadError) -> CLIFailure {
            switch error.kind {
            case .refused: CLIFailure(ExitStatus.noPermission, error.message)
            case .unreachable, .misdirected: CLIFailure(ExitStatus.unavailable, error.message)
            case .store, .cancelled: CLIFailure(ExitStatus.ioError, error.message)
            }
        }
    }
}

private func printProgress(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
