import ArgumentParser
import EventStoreInterface
import Foundation
import HostedLinks
import MeasurementEvents
import StoreOpening

extension ALStatsCommand {
    /// `alstats backup FOLDER`: the store as files that `alstats restore` reads back whole (``BackupFolder``).
    struct BackupCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Copy the store into a folder: its events, hosted links, public URLs and loss counts.",
            discussion: """
                The folder gets events.ndjson (every event, as `alstats export` writes it) and store.json (the \
                hosted links, their public URLs and the completeness counts by day): all the report reads. \
                `alstats restore` puts it into any database, SQLite or PostgreSQL, whose report is then this \
                one's. The folder is created; one that exists must be empty.

                Examples:
                  alstats backup backup-2025-11-21
                  alstats restore --database copy.sqlite backup-2025-11-21
                """)

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("The folder to write: new, or empty.", valueName: "folder"))
        var folder: String

        func run() async throws {
            try await reportingFailuresAsync {
                // The store first: a database that cannot be read leaves no folder behind.
                let store = try await database.openBackend(.read)
                try Self.makeEmptyFolder(folder)
                let stored: (links: [StoredLink], urls: [String], rows: [CompletenessRow])
                let rawEventsSince: Int64?
                do throws(StoreError) {
                    stored = (
                        try await store.linkStore.links(), try await store.linkStore.publicURLs(),
                        try await store.completenessRecords.completenessRows()
                    )
                    rawEventsSince = try await store.retention.rawEventsSince()
                } catch {
                    throw CLIFailure(error)
                }
                let backup = BackupFolder(
                    links: try stored.links.map(LinksCommand.decode),
                    publicURLs: stored.urls.compactMap(LinkPublicURL.init), completeness: stored.rows)
                let events = try await Self.writeEvents(
                    of: store, since: rawEventsSince ?? .min, to: folder + "/" + BackupFolder.eventsFile)
                try Self.write(backup.storeJSON, to: folder + "/" + BackupFolder.storeFile)
                try await store.finish()
                print(
                    "backed up \(String(counting: events, "event")), \(String(counting: backup.links.count, "link")), "
                        + "\(String(counting: backup.publicURLs.count, "public URL")) and "
                        + "\(String(counting: backup.completeness.count, "completeness count")) into \(folder)")
                if let rawEventsSince { Self.warnPruned(since: rawEventsSince, location: store.backend.location) }
            }
        }

        /// Says on standard error that the backup of a pruned store holds its raw events since `since` only: the
        /// counts of the days before are in its rollups, which a restore rebuilds from the events (docs/cli.md,
        /// "alstats backup").
        static func warnPruned(since: Int64, location: String) {
            printError(
                "alstats backup: note: \(location) was pruned: the backup holds its raw events since "
                    + "\(EventTime.rfc3339(milliseconds: since)) only, so a restore's report counts nothing before "
                    + "then; to keep those counts, copy the database itself "
                    + "(docs/collector.md, \"Backup and restore\")")
        }

        /// Creates `folder`, or checks that it is an empty folder.
        static func makeEmptyFolder(_ folder: String) throws(CLIFailure) {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
                let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [""]
                guard isFolder.boolValue, contents.isEmpty else {
                    throw CLIFailure(
                        ExitStatus.usage, "\(folder) exists and is not an empty folder: give a new or empty one")
                }
                return
            }
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CLIFailure(
                    ExitStatus.ioError, "cannot create the folder \(folder): \(error.localizedDescription)")
            }
        }

        /// Writes the events of `store` from `since` on as NDJSON into `path` (of a pruned store, those since its
        /// horizon: not the install path's events a prune keeps before it, which a restore would count in rollups
        /// that start at the horizon). Returns how many.
        static func writeEvents(
            of store: OpenedStore, since: Int64, to path: String
        ) async throws(CLIFailure) -> Int {
            guard FileManager.default.createFile(atPath: path, contents: nil),
                let handle = FileHandle(forWritingAtPath: path)
            else { throw CLIFailure(ExitStatus.ioError, "cannot create \(path): check the folder's permissions") }
            defer { try? handle.close() }
            do {
                return try await store.backend.exportNDJSON(since: since, until: .max) { chunk in
                    try handle.write(contentsOf: chunk)
                }
            } catch let error as StoreError {
                throw CLIFailure(error)
            } catch {
                throw CLIFailure(ExitStatus.ioError, "cannot write \(path): \(error)")
            }
        }

        /// Writes `text` into the file `path`.
        static func write(_ text: String, to path: String) throws(CLIFailure) {
            do {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw CLIFailure(ExitStatus.ioError, "cannot write \(path): \(error.localizedDescription)")
            }
        }
    }
}
