import ArgumentParser
import EventIngest
import EventStoreInterface
import Foundation
import HostedLinks
import MeasurementEvents
import StoreOpening

extension ALStatsCommand {
    /// `alstats restore FOLDER`: puts a backup (``BackupFolder``) into the database.
    struct RestoreCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Put a folder of `alstats backup` into the database: events, links, public URLs, loss counts.",
            discussion: """
                Into a new or empty database the restore is exact: its report is the backed-up store's. Links \
                replace those of the same slug, public URLs are added, events already stored are skipped, and each \
                completeness count becomes the larger of the stored one and the backup's, so that restoring twice \
                changes nothing. Creates the database when it does not exist.

                Example:
                  alstats restore --database postgres://alstats@db.example.com/alstats backup-2025-11-21
                """)

        @OptionGroup var database: DatabaseOptions

        @Argument(help: ArgumentHelp("A folder written by `alstats backup`.", valueName: "folder"))
        var folder: String

        func run() async throws {
            try await reportingFailuresAsync {
                let storeFile = folder + "/" + BackupFolder.storeFile
                let eventsFile = folder + "/" + BackupFolder.eventsFile
                for file in [storeFile, eventsFile] where !FileManager.default.fileExists(atPath: file) {
                    throw CLIFailure(ExitStatus.noInput, "\(file): no such file: give a folder of `alstats backup`")
                }
                guard let data = FileManager.default.contents(atPath: storeFile) else {
                    throw CLIFailure(ExitStatus.ioError, "\(storeFile): cannot be read; check its permissions")
                }
                let backup = try BackupFolder(storeJSON: String(decoding: data, as: UTF8.self), file: storeFile)
                let store = try await database.openBackend(.create)
                do throws(StoreError) {
                    try await store.linkStore.putLinks(backup.links.map(StoredLink.init))
                    for url in backup.publicURLs { try await store.linkStore.recordPublicURL(url) }
                } catch {
                    throw CLIFailure(error)
                }
                let summary = try await Self.ingest(eventsFile, into: store.ingester)
                // After the events: a device's loss record (`alstats_loss`) adds its count as it is stored, a count
                // the backup's completeness already holds; taking the larger of the two then counts it once.
                do throws(StoreError) {
                    try await store.completenessRecords.restoreCompleteness(backup.completeness)
                } catch {
                    throw CLIFailure(error)
                }
                try await store.finish()
                if summary.invalid > 0 {
                    throw CLIFailure(
                        ExitStatus.dataError,
                        "\(summary.invalid) of \(String(counting: summary.lines, "line")) of \(eventsFile) were "
                            + "invalid; the other events are restored: fix the lines above")
                }
                print(
                    "restored \(String(counting: summary.stored, "new event")) (\(summary.duplicates) already stored), "
                        + "\(String(counting: backup.links.count, "link")), "
                        + "\(String(counting: backup.publicURLs.count, "public URL")) and "
                        + "\(String(counting: backup.completeness.count, "completeness count")) into "
                        + store.backend.location)
            }
        }

        /// Ingests the backup's events as `alstats ingest` does, each invalid line printed.
        static func ingest(_ file: String, into ingester: any NDJSONIngester) async throws -> IngestSummary {
            do {
                return try await ingester.ingest(
                    [IngestInput(path: file)], options: IngestOptions(),
                    onInvalidLine: { printError($0.description) }, progress: nil)
            } catch let error as StoreError {
                throw CLIFailure(error)
            } catch let error as IngestError {
                throw CLIFailure(error)
            }
        }
    }
}
