import EventReport
import EventStoreInterface
import EventStoreSQLite
import Foundation
import MeasurementEvents

/// `alstats-bench report`: `alstats report` (the release binary, as a user runs it) against the `sqlite3`
/// CLI running the equivalent GROUP BY over the raw events, on databases of 100k, 1M and 10M events
/// spread over the same 30 days. Goals: at 10M, the report is at least 20x faster; from 100k to 10M its
/// time grows less than 2x; with 10M hosted link hits added, the report (with its links section) takes at
/// most 2x the time of the same report without them (`--link-base N`, `--link-hits N,...`); the report of the
/// last 15 days with `--compare previous` takes at most 2x the time of the same report without it.
enum ReportBenchmark {
    static let suite = "report"
    static let days: Int64 = 30
    static let start: Int64 = 1_761_955_200_000  // 2025-11-01T00:00:00Z

    /// The GROUP BY a person would run over the raw events for the report's numbers.
    static let rawQuery = """
        SELECT name, ref, referer_app_name, type, success, source_url_host, error, count(*)
        FROM events GROUP BY name, ref, referer_app_name, type, success, source_url_host, error;
        """

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let sizes = (arguments.values["sizes"] ?? (arguments.quick ? "20000,200000" : "100000,1000000,10000000"))
            .split(separator: ",").compactMap { Int($0) }
        let folder = URL(fileURLWithPath: arguments.values["folder"] ?? NSTemporaryDirectory())
            .appendingPathComponent("alstats-bench-report")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let alstats = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("alstats").path
        guard FileManager.default.isExecutableFile(atPath: alstats) else {
            throw BenchFailure("build the alstats binary next to alstats-bench first: swift build -c release")
        }
        let sqlite3 = "/usr/bin/sqlite3"
        var measures: [Measure] = []
        var reportTimes: [(Int, Double)] = []
        for size in sizes {
            let path = folder.appendingPathComponent("report-\(size).sqlite").path
            try populate(path, events: size)
            let ours = try median(3) { try time(alstats, ["report", "--database", path, "--format", "json"]) }
            let theirs = try median(3) { try time(sqlite3, [path, rawQuery]) }
            reportTimes.append((size, ours))
            let label = size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1_000)k"
            measures.append(try compareMeasure(path: path, label: label, alstats: alstats))
            measures.append(
                Measure.compared(
                    suite: suite, name: "report_ms_\(label)", value: ours * 1_000, unit: "ms",
                    baseline: "sqlite3 GROUP BY over raw events", baselineValue: theirs * 1_000,
                    goal: size >= 10_000_000 ? "ratio <= 0.05 (20x faster)" : "(reported)",
                    check: { size >= 10_000_000 ? $0 <= 0.05 : true }))
        }
        let linkBase = Int(arguments.values["link-base"] ?? "") ?? (arguments.quick ? 20_000 : 1_000_000)
        let hits = (arguments.values["link-hits"] ?? (arguments.quick ? "100000" : "1000000,10000000"))
            .split(separator: ",").compactMap { Int($0) }
        measures += try linkMeasures(base: linkBase, hits: hits, folder: folder, alstats: alstats)
        if let first = reportTimes.first, let last = reportTimes.last, reportTimes.count > 1 {
            measures.append(
                Measure.compared(
                    suite: suite, name: "report_growth_\(first.0)_to_\(last.0)", value: last.1 * 1_000, unit: "ms",
                    baseline: "report at \(first.0) events", baselineValue: first.1 * 1_000, goal: "ratio < 2",
                    check: { $0 < 2 }))
        }
        return measures
    }

    /// The report of the last 15 of the 30 days with `--compare previous` (which reads the first 15 as well)
    /// against the same report without it: goal at most 2x.
    static func compareMeasure(path: String, label: String, alstats: String) throws -> Measure {
        let half = days / 2 * 86_400_000
        let window = [
            "--since", EventTime.rfc3339(milliseconds: start + half), "--until",
            EventTime.rfc3339(milliseconds: start + 2 * half),
        ]
        let plain = try median(3) { try time(alstats, ["report", "--database", path, "--format", "json"] + window) }
        let compared = try median(3) {
            try time(alstats, ["report", "--database", path, "--format", "json", "--compare", "previous"] + window)
        }
        print(
            "report --compare previous at \(label): \(String(format: "%.1f", compared * 1_000)) ms, "
                + "without: \(String(format: "%.1f", plain * 1_000)) ms, "
                + "compare/plain \(String(format: "%.2f", compared / plain))")
        return Measure.compared(
            suite: suite, name: "report_compare_ms_\(label)", value: compared * 1_000, unit: "ms",
            baseline: "the same report without --compare", baselineValue: plain * 1_000, goal: "ratio <= 2",
            check: { $0 <= 2 })
    }

    /// Writes `events` events, and `hits` hosted link hits with a fifth as many arrivals, to a new database at
    /// `path` (kept between runs when it already has them).
    static func populate(_ path: String, events: Int, hits: Int = 0) throws {
        let links = hits + hits / 5
        if let store = try? SQLiteEventStore(path: path, options: SQLiteEventStore.Options(create: false)),
            (try? store.count()) == events + links
        {
            return
        }
        removeDatabase(atPath: path)
        let store = try SQLiteEventStore(path: path)
        if hits > 0, let url = LinkPublicURL(publicURL) { try store.recordPublicURL(url) }
        let begin = nowNanoseconds()
        try write(events, to: store) { event($0, of: events) }
        try write(links, to: store) { linkEvent($0, of: hits) }
        let seconds = Double(nowNanoseconds() - begin) / 1e9
        FileHandle.standardError.write(
            Data(
                "report: wrote \(events) events and \(links) link events in \(String(format: "%.1f", seconds)) s\n".utf8
            ))
    }

    private static func write(_ count: Int, to store: SQLiteEventStore, _ make: (Int) -> MeasurementEvent) throws {
        let batch = 50_000
        var index = 0
        while index < count {
            let size = min(batch, count - index)
            try store.write((index..<index + size).map(make))
            index += size
        }
    }

    /// Event `index` of `total`, spread evenly over 30 days; its dimensions are mixed by a hash of the
    /// index, so that the combinations in each 15-minute bucket grow with the density, as real traffic does.
    static func event(_ index: Int, of total: Int) -> MeasurementEvent {
        var hash = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        hash ^= hash >> 29
        func pick<T>(_ values: [T]) -> T {
            defer { hash = hash &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
            return values[Int((hash >> 33) % UInt64(values.count))]
        }
        let timestamp = start + Int64(index) * (days * 86_400_000) / Int64(total)
        let id = EventID(uuidHigh: UInt64(timestamp) << 16 | 0x7000, low: 0x8000_0000_0000_0000 | UInt64(index))
        let ref = pick(BenchEvents.refs + ["", "", "partner-\(index % 3)"])
        var fields: [String: String] = ref.isEmpty ? [:] : [FieldName.ref: ref]
        let name: String
        switch pick(Array(0..<20)) {
        case 0..<8:
            name = EventName.navIn
            fields[FieldName.refererAppName] = pick(BenchEvents.apps)
            fields[FieldName.inputURL] = "example://article/\(index)"
        case 8..<17:
            name = EventName.navOut
            let outcome = pick(["app", "app", "app", "web", "fail"])
            fields[FieldName.type] = outcome
            fields[FieldName.success] = outcome == "fail" ? "0" : "1"
            fields[FieldName.sourceURLHost] = pick(BenchEvents.hosts)
            if outcome == "fail" {
                fields[FieldName.error] = pick([
                    "no target could be opened", "resolution failed: timeout", "resolution failed: HTTP 404",
                    "invalid extras",
                ])
            }
        case 17..<19:
            name = EventName.refBackOut
            fields[FieldName.refererAppName] = pick(BenchEvents.apps)
            fields[FieldName.success] = pick(["1", "1", "1", "0"])
            fields[FieldName.type] = fields[FieldName.success] == "1" ? "app" : "fail"
        default:
            name = "signup"
        }
        return MeasurementEvent(id: id, name: name, fields: fields, timestamp: timestamp)
    }

    /// Seconds a process takes to run, output discarded; a failing run is an error.
    static func time(_ executable: String, _ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let begin = nowNanoseconds()
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure(
                "\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return Double(nowNanoseconds() - begin) / 1e9
    }

    static func median(_ runs: Int, _ body: () throws -> Double) throws -> Double {
        var times: [Double] = []
        for _ in 0..<runs { times.append(try body()) }
        return times.sorted()[runs / 2]
    }
}
