import EventStoreInterface
import Foundation
import MeasurementEvents
import SQLiteSupport

/// `alstats-bench prune` (issue 56, "a year on one box"): `alstats prune` of an SQLite database of a year of events,
/// against `alstats ingest` of the same events in the same run. The database holds `--events N` lines (default
/// 10,000,000; 200,000 with `--quick`) of the realistic feed (``FeedLines``, about 600 bytes a line) whose events
/// are spread evenly over the 365 days before now, oldest first; it is ingested once with the default settings (the
/// baseline, timed) and copied, then `alstats prune --keep 275d` deletes the oldest 90 days from one copy (the
/// issue's goal: at most a tenth of the ingest's time) and `alstats prune --keep 90d` the oldest 275 from the other.
/// Both prunes include giving the pages back (incremental vacuum); the events deleted and the file's bytes after
/// each are printed beside those before (the rollups of all 365 days stay, so the file shrinks by less than the
/// share of events deleted). Build everything first (`swift build -c release`): the suite runs the `alstats` beside
/// it. It needs free disk for the NDJSON (removed once ingested) and two copies of the database.
enum PruneBenchmark {
    static let suite = "prune"

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let count = Int(arguments.values["events"] ?? "") ?? (arguments.quick ? 200_000 : 10_000_000)
        let seed = UInt64(arguments.values["seed"] ?? "") ?? 1
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "alstats-prune-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("year.ndjson").path
        let year = 365 * RetentionPeriod.day
        let start = SystemEventClock().nowMilliseconds() - year
        let step = Double(year) / Double(max(1, count))
        var lines = FeedLines(seed: seed, timeOfLine: { start + Int64(Double($0) * step) })
        let inputBytes = try IngestBenchmark.writeNDJSON(&lines, count: count, to: input)
        let database = folder.appendingPathComponent("year.sqlite").path
        let ingest = try IngestBenchmark.ingest(input, into: database)
        try? FileManager.default.removeItem(atPath: input)
        let (stored, bytes) = (try events(in: database), fileBytes(database))
        print(
            "prune: \(count) feed lines (\(inputBytes / max(1, count)) bytes a line) over the 365 days before now: "
                + "\(stored) events stored in \(String(format: "%.2f", ingest.seconds)) s, \(bytes) bytes")
        let copy = folder.appendingPathComponent("year-copy.sqlite").path
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: database + suffix) {
            try FileManager.default.copyItem(atPath: database + suffix, toPath: copy + suffix)
        }
        var measures: [Measure] = []
        for (path, keep, pruned, goal) in [
            (database, "275d", 90, "ratio <= 0.1"), (copy, "90d", 275, "for comparison"),
        ] {
            let prune = try self.prune(path, keep: keep)
            let (left, leftBytes) = (try events(in: path), fileBytes(path))
            print(
                "prune: --keep \(keep): \(stored - left) events deleted, \(left) left, in "
                    + "\(String(format: "%.2f", prune.seconds)) s; \(bytes) bytes before, \(leftBytes) after")
            measures.append(
                Measure.compared(
                    suite: suite, name: "prune_\(pruned)_of_365_days_s", value: prune.seconds, unit: "s",
                    baseline: "alstats ingest of the same \(count) lines", baselineValue: ingest.seconds,
                    goal: goal, check: { goal == "ratio <= 0.1" ? $0 <= 0.1 : true }))
            measures.append(
                Measure.compared(
                    suite: suite, name: "prune_\(pruned)_of_365_days_file_bytes", value: Double(leftBytes),
                    unit: "bytes", baseline: "the file before the prune", baselineValue: Double(bytes),
                    goal: "for comparison (the rollups of all 365 days stay)", check: { _ in true }))
        }
        return measures
    }

    /// Runs `alstats prune --keep keep` (the one beside this binary) on `database`.
    static func prune(_ database: String, keep: String) throws -> IngestBenchmark.Child {
        let alstats = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("alstats").path
        let result = try IngestBenchmark.spawn(alstats, ["prune", "--keep", keep, "--database", database])
        guard result.status == 0 else { throw BenchFailure("alstats prune exited with status \(result.status)") }
        return result
    }

    /// The events stored in `database`.
    static func events(in database: String) throws -> Int {
        let connection = try SQLiteConnection(path: database, create: false)
        return Int(try connection.scalarInt("SELECT count(*) FROM events"))
    }

    /// The bytes of `database` and its WAL.
    static func fileBytes(_ database: String) -> Int {
        IngestBenchmark.fileBytes(database) + IngestBenchmark.fileBytes(database + "-wal")
    }
}
