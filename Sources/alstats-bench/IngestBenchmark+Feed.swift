import Foundation
import MeasurementEvents

extension IngestBenchmark {
    /// `alstats-bench ingest` on the realistic feed (``FeedLines``, the default workload): `alstats ingest` with
    /// its default settings against the plain Python ingester and DuckDB's `read_json` load of the same file, each
    /// run `--runs` times in turn (3 by default, 1 with `--quick`) and compared by their medians; the database's bytes
    /// against the NDJSON's, the peak resident memory, the share of lines the codec reads in one pass (its fast
    /// path), and the share read in place from their bytes (``NDJSONCodec/scan(_:into:)``, which SQLite's ingest
    /// encodes without a decoded event) printed beside them.
    static func runFeed(_ arguments: BenchArguments, count: Int, seed: UInt64, folder: URL) throws -> [Measure] {
        let runs = max(1, Int(arguments.values["runs"] ?? "") ?? (arguments.quick ? 1 : 3))
        let input = folder.appendingPathComponent("events-feed.ndjson").path
        var lines = FeedLines(seed: seed)
        let inputBytes = try writeNDJSON(&lines, count: count, to: input)
        let share = try fastPathShare(of: input)
        print(
            "ingest: \(count) feed lines, \(inputBytes / max(1, count)) bytes a line; the one-pass reader takes "
                + String(format: "%.1f%% of the valid lines (%d of %d), ", 100 * share.ratio, share.flat, share.valid)
                + String(format: "%.1f%% read in place (%d)", 100 * share.inPlaceRatio, share.inPlace))
        var ours: [Child] = []
        var python: [Double] = []
        var duck: [Double] = []
        var bytes = 0
        let duckPython = duckDBPython()
        for run in 0..<runs {
            let database = folder.appendingPathComponent("ours-\(run).sqlite").path
            let child = try ingest(input, into: database)
            ours.append(child)
            bytes = fileBytes(database) + fileBytes(database + "-wal")
            try? FileManager.default.removeItem(atPath: database)
            if let seconds = try pythonSeconds(input: input, folder: folder) { python.append(seconds) }
            if let duckPython, let seconds = try duckDBSeconds(duckPython, input: input, folder: folder) {
                duck.append(seconds)
            }
            print(
                "ingest: run \(run + 1): alstats \(rate(count, child.seconds))/s, Python "
                    + "\(python.last.map { rate(count, $0) } ?? "-")/s, DuckDB \(duck.last.map { rate(count, $0) } ?? "-")/s"
            )
        }
        var measures = rateMeasures(count: count, ours: ours.map(\.seconds), python: python, duck: duck)
        measures.append(
            Measure.compared(
                suite: suite, name: "ingest_feed_bytes_per_event", value: Double(bytes) / Double(count), unit: "bytes",
                baseline: "the NDJSON file", baselineValue: Double(inputBytes) / Double(count),
                goal: "ratio <= 0.45", check: { $0 <= 0.45 }))
        let megabytes = Double(ours.map(\.maximumResidentKilobytes).max() ?? 0) / 1024
        measures.append(
            Measure.absolute(
                suite: suite, name: "ingest_feed_peak_rss_\(count)_events", value: megabytes, unit: "MB",
                goal: "< 90 MB (\(inputBytes >> 20) MiB of NDJSON)", met: megabytes < 90))
        measures.append(
            Measure.absolute(
                suite: suite, name: "ingest_feed_fast_path_share", value: share.ratio, unit: "of valid lines",
                goal: "every shape on the fast path", met: share.ratio > 0.999))
        measures.append(
            Measure.absolute(
                suite: suite, name: "ingest_feed_in_place_share", value: share.inPlaceRatio, unit: "of valid lines",
                goal: "-", met: true))
        return measures
    }

    /// The ingest's events/s (the median of `ours`, in seconds) against the Python ingester's and DuckDB's medians,
    /// for those that ran.
    static func rateMeasures(count: Int, ours: [Double], python: [Double], duck: [Double]) -> [Measure] {
        let oursRate = Double(count) / median(ours)
        var measures: [Measure] = []
        let name = "ingest_feed_events_per_s"
        if !python.isEmpty {
            measures.append(
                Measure.compared(
                    suite: suite, name: name, value: oursRate, unit: "events/s",
                    baseline: "Python json + sqlite3, batches of 1,000, WAL (median of \(python.count))",
                    baselineValue: Double(count) / median(python), goal: "ratio >= 5", check: { $0 >= 5 }))
        }
        if !duck.isEmpty {
            measures.append(
                Measure.compared(
                    suite: suite, name: "\(name)_vs_duckdb", value: oursRate, unit: "events/s",
                    baseline: "DuckDB read_json into a table (median of \(duck.count))",
                    baselineValue: Double(count) / median(duck), goal: "ratio >= 0.6 (moonshot 1.0)",
                    check: { $0 >= 0.6 }))
        }
        return measures
    }

    /// The share of the valid lines of `path` that the codec reads in one pass
    /// (``NDJSONCodec/decodeFlat(utf8:truncatedValues:)``) rather than through a tree, and the share it reads in
    /// place (``NDJSONCodec/scan(_:into:)``).
    static func fastPathShare(of path: String) throws -> (
        flat: Int, valid: Int, ratio: Double, inPlace: Int, inPlaceRatio: Double
    ) {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let codec = NDJSONCodec()
        var (flat, valid, inPlace) = (0, 0, 0)
        var scanned = FlatLine()
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            for index in bytes.indices where bytes[index] == 0x0A {
                let line = UnsafeBufferPointer(rebasing: bytes[start..<index])
                start = index + 1
                var cut = 0
                if codec.scan(line, into: &scanned) { inPlace += 1 }
                if codec.decodeFlat(utf8: line, truncatedValues: &cut) != nil {
                    flat += 1
                    valid += 1
                } else if (try? codec.decodeTree(utf8: line, truncatedValues: &cut)) != nil {
                    valid += 1
                }
            }
        }
        return (flat, valid, Double(flat) / Double(max(1, valid)), inPlace, Double(inPlace) / Double(max(1, valid)))
    }

    /// The Python ingester's wall time on `input`, or `nil` without python3.
    static func pythonSeconds(input: String, folder: URL) throws -> Double? {
        let script = folder.appendingPathComponent("ingest.py").path
        try python.write(toFile: script, atomically: true, encoding: .utf8)
        let database = folder.appendingPathComponent("python.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: database) }
        guard let python3 = which("python3") else { return nil }
        let theirs = try spawn(python3, [script, database, input])
        return theirs.status == 0 ? theirs.seconds : nil
    }

    /// DuckDB's load of `input` into a new table, its wall time, with `python`'s DuckDB.
    static func duckDBSeconds(_ python: String, input: String, folder: URL) throws -> Double? {
        let script = folder.appendingPathComponent("duckdb_load.py").path
        try duckdb.write(toFile: script, atomically: true, encoding: .utf8)
        let database = folder.appendingPathComponent("duck.duckdb").path
        defer { try? FileManager.default.removeItem(atPath: database) }
        let theirs = try spawn(python, [script, database, input])
        return theirs.status == 0 ? theirs.seconds : nil
    }

    static func rate(_ count: Int, _ seconds: Double) -> String {
        String(format: "%.0f", Double(count) / seconds)
    }
}
