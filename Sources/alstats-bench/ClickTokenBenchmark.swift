import EventStoreInterface
import EventStoreSQLite
import Foundation
import HostedLinks
import MeasurementEvents

/// `alstats-bench clicks`: what storing the click tokens of the install path costs the SQLite store (every page view
/// of a person mints one, docs/install.md). The collector's recorder stores them in batches, one transaction each
/// (`recordClicks`); the suite times batches of 2,500 (100 ms of pages at 25,000 pages/s) into a table that already
/// holds 200,000, with our tokens (time first, ``ClickToken/mint(at:using:)``) against the same batches of tokens of
/// 16 random bytes, whose keys land on every leaf of the table's B-tree. Best of two rounds each, alternated.
/// Options: `--stored N` (default 200,000; 40,000 with `--quick`), `--batches N` (default 20; 5 with `--quick`).
enum ClickTokenBenchmark {
    static let suite = "clicks"
    static let batch = 2_500

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let stored = Int(arguments.values["stored"] ?? "") ?? (arguments.quick ? 40_000 : 200_000)
        let batches = Int(arguments.values["batches"] ?? "") ?? (arguments.quick ? 5 : 20)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("alstats-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var ours = Double.infinity
        var random = Double.infinity
        for round in 0..<2 {
            ours = min(
                ours, try millisecondsPerBatch(ordered: true, stored: stored, batches: batches, in: folder, round))
            random = min(
                random, try millisecondsPerBatch(ordered: false, stored: stored, batches: batches, in: folder, round))
        }
        return [
            Measure.compared(
                suite: suite, name: "record_2500_ms", value: ours, unit: "ms",
                baseline: "the same batches of 16 random bytes", baselineValue: random,
                goal: "ratio <= 0.5 (time-first tokens append at the end of the index)", check: { $0 <= 0.5 })
        ]
    }

    /// The mean time of `batches` batches into a store that holds `stored` clicks already.
    static func millisecondsPerBatch(
        ordered: Bool, stored: Int, batches: Int, in folder: URL, _ round: Int
    ) throws -> Double {
        let store = try SQLiteEventStore(path: folder.appendingPathComponent("clicks-\(ordered)-\(round).sqlite").path)
        var generator = SeededGenerator(seed: UInt64(round + 1))
        var time: Int64 = 1_763_683_200_000
        func clicks() -> [StoredClick] {
            (0..<batch).map { _ in
                time += 1
                let token =
                    ordered
                    ? ClickToken.mint(at: time, using: &generator)
                    : ClickToken.mint(at: Int64(bitPattern: generator.next()) & 0xFFFF_FFFF_FFFF, using: &generator)
                return StoredClick(
                    token: token, slug: "invite", mintedMilliseconds: time, query: "referral=42&ref=bench")
            }
        }
        for _ in 0..<(stored / batch) { try store.recordClicks(clicks()) }
        let prepared = (0..<batches).map { _ in clicks() }
        let start = nowNanoseconds()
        for clicks in prepared { try store.recordClicks(clicks) }
        return Double(nowNanoseconds() - start) / 1e6 / Double(batches)
    }
}
