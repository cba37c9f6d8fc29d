import ArgumentParser
import EventStoreInterface
import EventStoreSQLite
import Foundation

extension ALStatsCommand {
    /// `alstats pack`: packs an SQLite database's long fields (``SQLiteEventStore/pack()``).
    struct PackCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pack",
            abstract: "Pack an SQLite database's long fields: about half the bytes on disk.",
            discussion: """
                Trains a Zstandard dictionary on the database's latest 4,096 events and packs the URLs and extra \
                fields of every stored event with it; every writer then packs new events too. Nothing is lost: \
                `alstats export` reproduces every event exactly. The views (nav_in, nav_out, ref_back_out, \
                event_field, link_event) then read packed fields through alstats's SQL function alstats_field: query them \
                with `alstats query`, not the sqlite3 shell (docs/sql.md, "Packed databases"). The file is then \
                rebuilt without the space the packed rows freed (VACUUM), which needs up to twice its size free.

                Example:
                  alstats pack --database alstats.sqlite
                  packed alstats.sqlite: 12271616 → 6602752 bytes
                """
        )

        @OptionGroup var database: DatabaseOptions

        /// The size of the file at `path` and its WAL, in bytes.
        static func bytes(of path: String) -> Int {
            [path, path + "-wal"].reduce(0) { total, file in
                total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
            }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                guard case .sqlite(let path) = try database.location else {
                    throw CLIFailure(ExitStatus.usage, "alstats pack packs SQLite files; give one with --database")
                }
                let store: SQLiteEventStore
                do throws(StoreError) {
                    store = try SQLiteEventStore(path: path, options: .init(create: false))
                } catch {
                    throw CLIFailure(error)
                }
                guard SQLiteEventStore.canPack else {
                    throw CLIFailure(ExitStatus.config, "this alstats was built without Zstandard and cannot pack")
                }
                let before = Self.bytes(of: path)
                let packed: Bool
                do throws(StoreError) {
                    packed = try store.pack()
                    if packed { try store.reclaimSpace() }
                } catch {
                    throw CLIFailure(error)
                }
                guard packed else {
                    throw CLIFailure(
                        ExitStatus.dataError,
                        "nothing packed: \(path) holds fewer than \(SQLiteEventStore.packingThreshold) events, or too few with URLs or extra "
                            + "fields to train a dictionary on")
                }
                print("packed \(path): \(before) → \(Self.bytes(of: path)) bytes")
            }
        }
    }
}
