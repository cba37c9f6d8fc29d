import EventStoreInterface
import EventStoreSQLite
import EventUpload
import Foundation
import MeasurementEvents

#if canImport(Glibc)
import Glibc
#endif

/// The push half of `alstats-bench upload`: `alstats push` (the binary beside this one, with its default
/// `--in-flight 12`) of realistic events from a database to a local `alstats serve`, against `alstats ingest` of the
/// same NDJSON into a fresh database in the same run; the push's own CPU per event (its process alone, from
/// `wait4`) beside the collector's; and the cost of the uploader's gzip against zlib's default level.
enum PushBenchmark {
    static let suite = UploadBenchmark.suite

    /// What the push half needs: the NDJSON file and the database `alstats ingest` made of it.
    struct Inputs {
        /// The NDJSON file, one realistic event a line, no two lines the same event.
        var ndjson: String
        /// `alstats ingest` of `ndjson`, made outside any timing.
        var database: String
        /// The number of events (lines, and rows of `database`).
        var count: Int
    }

    /// Writes `count` distinct realistic lines (``RealisticLines``, random UUIDv4 ids, ~10% without one) and
    /// ingests them into a database, outside any timing.
    static func inputs(count: Int, seed: UInt64, in folder: URL) throws -> Inputs {
        let ndjson = folder.appendingPathComponent("realistic.ndjson").path
        try writeDistinctLines(count: count, seed: seed, to: ndjson)
        let database = folder.appendingPathComponent("push-source.sqlite").path
        _ = try IngestBenchmark.ingest(ndjson, into: database)
        let stored = try SQLiteEventStore(path: database).count()
        guard stored == count else { throw BenchFailure("alstats ingest stored \(stored) of \(count) events") }
        return Inputs(ndjson: ndjson, database: database, count: count)
    }

    /// `count` lines of ``RealisticLines`` without its repeated lines, so that every line is one stored event.
    static func writeDistinctLines(count: Int, seed: UInt64, to path: String) throws {
        var generator = RealisticLines(style: .random, seed: seed)
        var seen = Set<Int>()
        var text: [UInt8] = []
        text.reserveCapacity(count * 640)
        while seen.count < count {
            let line = generator.next()
            guard seen.insert(line.hashValue).inserted else { continue }
            text.append(contentsOf: line.utf8)
            text.append(0x0A)
        }
        try Data(text).write(to: URL(fileURLWithPath: path))
    }

    /// Push against ingest, the push's CPU per event, and the collector's CPU per event beside it.
    /// - Returns: the measures, and the ingest's events/s (the baseline of the device path too).
    static func pushAgainstIngest(_ inputs: Inputs, in folder: URL) throws -> ([Measure], Double) {
        let collector = folder.appendingPathComponent("push-collector.sqlite").path
        let alstats = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("alstats").path
        let (push, serverCPU) = try UploadBenchmark.blocking {
            try await UploadBenchmark.withServer(database: collector) { url, server in
                let before = processCPUSeconds(server)
                let push = try IngestBenchmark.spawn(
                    alstats,
                    ["push", "--database", inputs.database, "--to", url.absoluteString, "--write-key", "bench"])
                guard push.status == 0 else { throw BenchFailure("alstats push exited with status \(push.status)") }
                // The last receipt is written before its answer: the collector's work is done once the push ends.
                return (push, processCPUSeconds(server) - before)
            }
        }
        let stored = try SQLiteEventStore(path: collector).count()
        guard stored == inputs.count else {
            throw BenchFailure("the collector stored \(stored) of the \(inputs.count) pushed events")
        }
        let fresh = folder.appendingPathComponent("push-ingest.sqlite").path
        let ingest = try IngestBenchmark.ingest(inputs.ndjson, into: fresh)
        removeDatabase(atPath: fresh)
        let events = Double(inputs.count)
        let pushMicroseconds = push.cpuSeconds / events * 1e6
        let measures = [
            Measure.compared(
                suite: suite, name: "push_events_per_s", value: events / push.seconds, unit: "events/s",
                baseline: "alstats ingest of the same NDJSON", baselineValue: events / ingest.seconds,
                goal: "ratio >= 0.6", check: { $0 >= 0.6 }),
            Measure.compared(
                suite: suite, name: "push_cpu_us_per_event", value: pushMicroseconds, unit: "µs",
                baseline: "alstats serve receiving the push", baselineValue: serverCPU / events * 1e6,
                goal: "value <= 10", check: { _ in pushMicroseconds <= 10 }),
            Measure.absolute(
                suite: suite, name: "ingest_cpu_us_per_event", value: ingest.cpuSeconds / events * 1e6, unit: "µs",
                goal: "none (for the reader)", met: true),
        ]
        return (measures, events / ingest.seconds)
    }

    /// Gzip of the push's batches (500 events each, as the uploader reads them) by the uploader's compressor (zlib's
    /// level 1; ISA-L's on Linux with the `ISAL` trait) against zlib's level 6, gzip's default: CPU and bytes per event.
    static func gzipLevels(_ inputs: Inputs) throws -> [Measure] {
        var lines: [String] = []
        lines.reserveCapacity(inputs.count)
        try SQLiteEventStore(path: inputs.database).forEachEvent { lines.append(NDJSONCodec.line(for: $0)) }
        let bodies = stride(from: 0, to: lines.count, by: 500).map {
            UploadBatch(lines: Array(lines[$0..<min($0 + 500, lines.count)])).body
        }
        func measure(_ compress: ([UInt8]) -> Data) -> (microseconds: Double, bytes: Double) {
            var best = Double.infinity
            var bytes = 0
            for _ in 0..<3 {
                bytes = 0
                let start = processCPUNanoseconds()
                for body in bodies { bytes += compress(body).count }
                best = min(best, Double(processCPUNanoseconds() - start) / 1e3)
            }
            return (best / Double(lines.count), Double(bytes) / Double(lines.count))
        }
        let fast = measure { Gzip.compress($0) }
        let default6 = measure { Gzip.compress($0, zlibLevel: 6) }
        let raw = Double(bodies.reduce(0) { $0 + $1.count }) / Double(lines.count)
        return [
            Measure.compared(
                suite: suite, name: "gzip_level_1_us_per_event", value: fast.microseconds, unit: "µs",
                baseline: "zlib level 6 (gzip's default)", baselineValue: default6.microseconds, goal: "ratio <= 0.6",
                check: { $0 <= 0.6 }),
            // The price of level 1's speed, for the reader: no goal.
            Measure(
                suite: suite, name: "gzip_level_1_bytes_per_event", value: fast.bytes, unit: "bytes",
                baseline: "zlib level 6 (uncompressed: \(Int(raw.rounded())))", baselineValue: default6.bytes,
                ratio: fast.bytes / default6.bytes, goal: "none (for the reader)", met: true),
        ]
    }

    /// User plus system CPU seconds of a running process, all threads (from /proc/PID/stat; 0 when unreadable).
    static func processCPUSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return 0 }
        // After "pid (comm)": state is field 3, utime field 14, stime field 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// User plus system CPU seconds of this process, all threads (getrusage(RUSAGE_SELF)).
func selfCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
