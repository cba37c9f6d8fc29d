import EventStoreInterface
import Foundation
import MeasurementEvents

#if canImport(Glibc)
import Glibc
#endif

/// `alstats-bench ingest`: `alstats ingest` of an NDJSON file of wide events (``WideLines``) against a plain
/// Python ingester (json + sqlite3, batches of 1,000, WAL) and DuckDB's `read_json` on the same file, the
/// database's bytes per event against the NDJSON's, and the peak resident memory of `alstats ingest`; with
/// `--workload realistic`, the project's own lines (``RealisticLines``) and the same events with time-ordered ids.
/// Options: `--events N` (default 1,000,000; 100,000 with `--quick`), `--workload wide|realistic`,
/// `--ids ordered|random|none` (realistic only; default random), `--seed S` (default 1), `--keep-inputs FOLDER`
/// (write the NDJSON files there and stop: for profiling). Build everything first (`swift build -c release`): the suite runs the `alstats` beside it.
///
/// Both `alstats ingest` runs are measured by wall time and by CPU time (user + system of the child process):
/// on a machine shared with other work the wall-time ratio swings with the load, the CPU-time ratio much
/// less. (Python runs on one core and alstats on two, so against Python only wall time is compared.)
enum IngestBenchmark {
    static let suite = "ingest"

    /// A plain ingester: json.loads per line, sqlite3's executemany in batches of 1,000, WAL. Lines that are not
    /// JSON objects, or lack a `name` or a `ts` (milliseconds or an ISO 8601 time), are skipped and counted, as
    /// `alstats ingest` skips them; the count goes to stderr.
    static let python = """
        import datetime, json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, name TEXT NOT NULL, ts INTEGER NOT NULL, fields TEXT)")

        def milliseconds(ts):
            if isinstance(ts, int) and not isinstance(ts, bool):
                return ts
            if isinstance(ts, str):
                try:
                    return int(datetime.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)
                except ValueError:
                    return None
            return None

        batch = []
        skipped = 0
        with open(sys.argv[2], encoding="utf-8") as lines:
            for line in lines:
                if not line.strip():
                    continue
                try:
                    event = json.loads(line)
                except ValueError:
                    skipped += 1
                    continue
                ts = milliseconds(event.get("ts")) if isinstance(event, dict) else None
                if ts is None or not isinstance(event.get("name"), str):
                    skipped += 1
                    continue
                batch.append((event.get("id"), event["name"], ts, json.dumps(event.get("fields", {}))))
                if len(batch) >= 1000:
                    db.executemany("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?)", batch)
                    db.commit()
                    batch = []
        if batch:
            db.executemany("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?)", batch)
        db.commit()
        print(f"skipped {skipped} lines", file=sys.stderr)
        """

    /// DuckDB's own NDJSON reader into a table: the whole file in one statement, on every core, with no
    /// validation, redaction, dedup or rollups (malformed lines skipped).
    static let duckdb = """
        import duckdb, sys
        con = duckdb.connect(sys.argv[1])
        con.execute("CREATE TABLE events AS SELECT * FROM read_json(?, format='newline_delimited', "
                    "ignore_errors=true, columns={'id': 'VARCHAR', 'name': 'VARCHAR', 'ts': 'VARCHAR', 'fields': 'JSON'})",
                    [sys.argv[2]])
        con.close()
        """

    /// Runs the suite: the wide workload (``WideLines``, the default) or `--workload realistic`
    /// (``RealisticLines``, with the time-ordered-ids comparison of its `--ids` styles).
    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let count = Int(arguments.values["events"] ?? "") ?? (arguments.quick ? 100_000 : 1_000_000)
        let seed = UInt64(arguments.values["seed"] ?? "") ?? 1
        let workload = try Workload.of(arguments, fallback: .feed)
        guard let style = RealisticLines.IDStyle(rawValue: arguments.values["ids"] ?? "random") else {
            throw BenchFailure("--ids takes ordered, random or none")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "alstats-ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        if let keep = arguments.values["keep-inputs"] {
            var feed = FeedLines(seed: seed)
            _ = try writeNDJSON(&feed, count: count, to: "\(keep)/events-feed.ndjson")
            var wide = WideLines(seed: seed)
            _ = try writeNDJSON(&wide, count: count, to: "\(keep)/events-wide.ndjson")
            for style in [style, .ordered] {
                var lines = RealisticLines(style: style, seed: seed)
                _ = try writeNDJSON(&lines, count: count, to: "\(keep)/events-\(style).ndjson")
            }
            return []
        }
        if workload == .feed { return try runFeed(arguments, count: count, seed: seed, folder: folder) }
        let input = folder.appendingPathComponent("events-\(workload).ndjson").path
        let inputBytes: Int
        switch workload {
        case .feed: return []
        case .wide:
            var lines = WideLines(seed: seed)
            inputBytes = try writeNDJSON(&lines, count: count, to: input)
        case .realistic:
            var lines = RealisticLines(style: style, seed: seed)
            inputBytes = try writeNDJSON(&lines, count: count, to: input)
        }
        let database = folder.appendingPathComponent("ours.sqlite").path
        // The wide workload is ingested packed (`--pack`, docs/design/storage-layout.md, "Packed fields"): the
        // layout that meets the bytes goal; an unpacked ingest of the same file follows for comparison.
        let ours = try ingest(input, into: database, pack: workload == .wide)
        let oursRate = Double(count) / ours.seconds
        let name = workload == .wide ? "ingest_wide_events_per_s" : "ingest_\(style)_ids_events_per_s"
        var measures: [Measure] = []
        if workload == .realistic, style != .ordered {
            measures += try orderedBaseline(ours, count: count, seed: seed, style: style, folder: folder, name: name)
        }
        measures.append(try pythonBaseline(oursRate, count: count, input: input, folder: folder, name: name))
        if workload == .wide {
            measures += try duckDBBaseline(oursRate, count: count, input: input, folder: folder, name: name)
            let bytes = fileBytes(database) + fileBytes(database + "-wal")
            measures.append(
                Measure.compared(
                    suite: suite, name: "ingest_wide_bytes_per_event", value: Double(bytes) / Double(count),
                    unit: "bytes", baseline: "the NDJSON file",
                    baselineValue: Double(inputBytes) / Double(count), goal: "ratio <= 0.5", check: { $0 <= 0.5 }))
            let plain = folder.appendingPathComponent("unpacked.sqlite").path
            let unpacked = try ingest(input, into: plain)
            measures.append(
                Measure.compared(
                    suite: suite, name: "ingest_wide_unpacked_events_per_s", value: Double(count) / unpacked.seconds,
                    unit: "events/s", baseline: "alstats ingest --pack of the same file", baselineValue: oursRate,
                    goal: "for comparison", check: { _ in true }))
            let plainBytes = fileBytes(plain) + fileBytes(plain + "-wal")
            measures.append(
                Measure.compared(
                    suite: suite, name: "ingest_wide_unpacked_bytes_per_event",
                    value: Double(plainBytes) / Double(count),
                    unit: "bytes", baseline: "the NDJSON file", baselineValue: Double(inputBytes) / Double(count),
                    goal: "for comparison", check: { _ in true }))
        }
        let megabytes = Double(ours.maximumResidentKilobytes) / 1024
        measures.append(
            Measure.absolute(
                suite: suite, name: "ingest_\(workload)_peak_rss_\(count)_events", value: megabytes, unit: "MB",
                goal: "< 96 MB (\(inputBytes >> 20) MiB of NDJSON, \(inputBytes / max(1, count)) bytes a line)",
                met: megabytes < 96))
        return measures
    }

    /// `alstats ingest` of the same events with time-ordered ids, by wall and by CPU time.
    static func orderedBaseline(
        _ ours: Child, count: Int, seed: UInt64, style: RealisticLines.IDStyle, folder: URL, name: String
    ) throws -> [Measure] {
        let ordered = folder.appendingPathComponent("events-ordered.ndjson").path
        var lines = RealisticLines(style: .ordered, seed: seed)
        _ = try writeNDJSON(&lines, count: count, to: ordered)
        let baseline = try ingest(ordered, into: folder.appendingPathComponent("ordered.sqlite").path)
        try? FileManager.default.removeItem(atPath: ordered)
        return [
            Measure.compared(
                suite: suite, name: name, value: Double(count) / ours.seconds, unit: "events/s",
                baseline: "alstats ingest, the same events with time-ordered ids",
                baselineValue: Double(count) / baseline.seconds, goal: "ratio >= 0.8", check: { $0 >= 0.8 }),
            Measure.compared(
                suite: suite, name: "ingest_\(style)_ids_events_per_cpu_s", value: Double(count) / ours.cpuSeconds,
                unit: "events/CPU s", baseline: "alstats ingest, the same events with time-ordered ids",
                baselineValue: Double(count) / baseline.cpuSeconds, goal: "ratio >= 0.8", check: { $0 >= 0.8 }),
        ]
    }

    /// The plain Python ingester of the same file, by wall time.
    static func pythonBaseline(_ oursRate: Double, count: Int, input: String, folder: URL, name: String) throws
        -> Measure
    {
        let script = folder.appendingPathComponent("ingest.py").path
        try python.write(toFile: script, atomically: true, encoding: .utf8)
        if let python3 = which("python3"),
            case let theirs = try spawn(python3, [script, folder.appendingPathComponent("python.sqlite").path, input]),
            theirs.status == 0
        {
            return Measure.compared(
                suite: suite, name: name, value: oursRate, unit: "events/s",
                baseline: "Python json + sqlite3, batches of 1,000, WAL",
                baselineValue: Double(count) / theirs.seconds, goal: "ratio >= 4", check: { $0 >= 4 })
        }
        return Measure.absolute(
            suite: suite, name: name, value: oursRate, unit: "events/s",
            goal: "ratio >= 4 vs Python (python3 not found or failed)", met: false)
    }

    /// DuckDB's `read_json` load of the same file, by wall time, and its bytes on disk; DuckDB comes from PyPI
    /// into a virtual environment of the bench's own (`~/.cache/alstats-bench/venv`), installed when missing.
    /// Without it (no network, no venv module) the bench says so and leaves the ratio out.
    static func duckDBBaseline(_ oursRate: Double, count: Int, input: String, folder: URL, name: String) throws
        -> [Measure]
    {
        guard let python = duckDBPython() else {
            print("ingest: DuckDB could not be installed (python3 -m venv, pip install duckdb): its ratio is left out")
            return []
        }
        let script = folder.appendingPathComponent("duckdb_load.py").path
        try duckdb.write(toFile: script, atomically: true, encoding: .utf8)
        let database = folder.appendingPathComponent("duck.duckdb").path
        let theirs = try spawn(python, [script, database, input])
        guard theirs.status == 0 else {
            print("ingest: the DuckDB load exited with status \(theirs.status): its ratio is left out")
            return []
        }
        return [
            Measure.compared(
                suite: suite, name: "\(name)_vs_duckdb", value: oursRate, unit: "events/s",
                baseline: "DuckDB read_json into a table (both cores; no validation, dedup or rollups)",
                baselineValue: Double(count) / theirs.seconds, goal: "ratio >= 0.5", check: { $0 >= 0.5 }),
            Measure.absolute(
                suite: suite, name: "duckdb_bytes_per_event", value: Double(fileBytes(database)) / Double(count),
                unit: "bytes", goal: "for comparison", met: true),
        ]
    }

    /// The python3 of the bench's virtual environment with DuckDB, created and installed when missing.
    static func duckDBPython() -> String? {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSTemporaryDirectory()
        let venv = "\(home)/.cache/alstats-bench/venv"
        let python = "\(venv)/bin/python3"
        if let status = try? spawn(python, ["-c", "import duckdb"]), status.status == 0 { return python }
        guard let python3 = which("python3") else { return nil }
        print("ingest: installing DuckDB from PyPI into \(venv) (once)")
        try? FileManager.default.createDirectory(atPath: venv, withIntermediateDirectories: true)
        guard let made = try? spawn(python3, ["-m", "venv", venv]), made.status == 0,
            let installed = try? spawn(python, ["-m", "pip", "install", "-q", "duckdb"]), installed.status == 0
        else { return nil }
        return python
    }

    /// The size of a file, 0 when there is none.
    static func fileBytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// Runs `alstats ingest` (the one beside this binary) of `input` into `database`.
    static func ingest(_ input: String, into database: String, pack: Bool = false) throws -> Child {
        let alstats = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("alstats").path
        guard FileManager.default.isExecutableFile(atPath: alstats) else {
            throw BenchFailure("no alstats beside alstats-bench at \(alstats): run swift build -c release first")
        }
        let result = try spawn(alstats, ["ingest", "--database", database] + (pack ? ["--pack"] : []) + [input])
        // 65: some lines were not valid events (the wide workload has malformed lines); the rest are stored.
        guard result.status == 0 || result.status == 65 else {
            throw BenchFailure("alstats ingest exited with status \(result.status)")
        }
        return result
    }

    /// Writes `count` lines of `lines` as NDJSON; returns the file's size.
    static func writeNDJSON(_ lines: inout some LineSource, count: Int, to path: String) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw BenchFailure("cannot write \(path)") }
        defer { try? handle.close() }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20 + 4_096)
        var total = 0
        for _ in 0..<count {
            buffer.append(contentsOf: lines.next().utf8)
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 {
                try handle.write(contentsOf: buffer)
                total += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
        return total + buffer.count
    }

    /// What a child process used.
    struct Child {
        /// Its exit status (128 + the signal when killed).
        var status: Int32
        /// Wall time.
        var seconds: Double
        /// User plus system CPU time, all threads.
        var cpuSeconds: Double
        /// Peak resident memory (VmHWM).
        var maximumResidentKilobytes: Int
    }

    /// Runs a program with stdout and stderr sent to /dev/null; returns its status, wall and CPU time and
    /// peak RSS (VmHWM sampled every 10 ms).
    static func spawn(_ path: String, _ arguments: [String]) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = nowNanoseconds()
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchFailure("cannot run \(path): \(String(cString: strerror(spawned)))") }
        // Poll the child's VmHWM: rusage's ru_maxrss would include this (large) process's memory, because
        // posix_spawn's vfork-and-exec carries the parent's high-water mark into the child.
        var status: Int32 = 0
        var peakKilobytes = 0
        var usage = rusage()
        while true {
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            if waited < 0 && errno != EINTR {
                throw BenchFailure("waitpid failed: \(String(cString: strerror(errno)))")
            }
            peakKilobytes = max(peakKilobytes, highWaterKilobytes(of: pid))
            usleep(10_000)
        }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let cpu =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return Child(status: exitStatus, seconds: seconds, cpuSeconds: cpu, maximumResidentKilobytes: peakKilobytes)
    }

    /// VmHWM of a running process, in KiB (0 when it cannot be read).
    static func highWaterKilobytes(of pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        }
        return 0
    }

    /// The full path of a program on PATH.
    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
