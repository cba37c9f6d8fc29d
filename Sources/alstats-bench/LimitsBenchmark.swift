import Foundation
import MeasurementEvents
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `alstats-bench limits`: what the collector's limits (docs/collector.md, "Limits") cost, and what they buy.
///
/// - The cost: events/s through `POST /v1/events` (64 keep-alive clients, batches of 100 wide events, all of one
///   write key, so that every request takes the same bucket's lock) with the rate limit on at a generous rate that
///   never refuses, against the same with the key `"unlimited"` (no bucket, no count of lines), in the same run:
///   `--runs R` (default 7, 1 with `--quick`) pairs on fresh servers, back to back in alternating order; the median
///   of the pairs' ratios (goal >= 0.97), and the same for the server's events per CPU second (`/proc/PID/stat`),
///   which moves less with the host's other work.
/// - What it buys: the p99 of a modest key (10 events every 20 ms, a quarter of its rate: about 400 requests in
///   8 s) while another key floods from 32 connections, against its own p99 alone on the same server just before
///   (goal <= 2).
/// Options: `--events N` (default 200,000; 40,000 with `--quick`), `--seed S`.
enum LimitsBenchmark {
    static let suite = "limits"

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let count = Int(arguments.values["events"] ?? "") ?? (arguments.quick ? 40_000 : 200_000)
        let seed = UInt64(arguments.values["seed"] ?? "") ?? 1
        let runs = max(1, Int(arguments.values["runs"] ?? "") ?? (arguments.quick ? 1 : 7))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "alstats-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = WideLines(seed: seed)
        let bodies = ServeBenchmark.batches((0..<count).map { _ in generator.next() }, of: 100)
        let on = folder.appendingPathComponent("on.json").path
        let off = folder.appendingPathComponent("off.json").path
        try #"{"limits": {"events_per_second_per_key": 1000000000, "burst_per_key": 10000000000}}"#
            .write(toFile: on, atomically: true, encoding: .utf8)
        try #"{"limits": {"events_per_second_per_key": "unlimited"}}"#.write(
            toFile: off, atomically: true, encoding: .utf8)
        var onFigures: [(rate: Double, cpu: Double)] = []
        var offFigures: [(rate: Double, cpu: Double)] = []
        var statuses: [Int: Int] = [:]
        for run in 0..<runs {
            // Alternate which goes first, so that neither always meets the warmer page cache.
            for limited in run % 2 == 0 ? [true, false] : [false, true] {
                let name = limited ? "on" : "off"
                let server = try ServeProcess(folder: folder, name: name, arguments: ["--config", limited ? on : off])
                let result = ServeBenchmark.drive(port: server.port, bodies: bodies, clients: ServeBenchmark.clients)
                let cpu = cpuSeconds(of: server.process.processIdentifier)
                _ = server.stop()
                removeDatabase(atPath: folder.appendingPathComponent("\(name).sqlite").path)
                let figures = (rate: Double(count) / result.seconds, cpu: Double(count) / cpu)
                if limited { onFigures.append(figures) } else { offFigures.append(figures) }
                statuses.merge(result.statuses, uniquingKeysWith: +)
            }
        }
        let failed = statuses.filter { !(200..<300).contains($0.key) }.values.reduce(0, +)
        // Each pair ran back to back: the median of the pairs' ratios moves less with the host's load than the
        // ratio of the medians.
        let rateRatios = zip(onFigures, offFigures).map { $0.rate / $1.rate }
        let cpuRatios = zip(onFigures, offFigures).map { $0.cpu / $1.cpu }
        var measures = [
            Measure(
                suite: suite, name: "serve_events_per_s_rate_limit_on", value: median(onFigures.map(\.rate)),
                unit: "events/s",
                baseline:
                    "the key unlimited, same run (pairs' ratios \(list(rateRatios, 3)); on \(list(onFigures.map(\.rate), 0)), "
                    + "off \(list(offFigures.map(\.rate), 0)))",
                baselineValue: median(offFigures.map(\.rate)), ratio: median(rateRatios),
                goal: "median pair ratio >= 0.97", met: median(rateRatios) >= 0.97),
            Measure(
                suite: suite, name: "serve_events_per_cpu_s_rate_limit_on", value: median(onFigures.map(\.cpu)),
                unit: "events/CPU s",
                baseline: "the key unlimited (pairs' ratios \(list(cpuRatios, 3)))",
                baselineValue: median(offFigures.map(\.cpu)), ratio: median(cpuRatios),
                goal: "median pair ratio >= 0.97", met: median(cpuRatios) >= 0.97),
            Measure.absolute(
                suite: suite, name: "limits_non_2xx_answers", value: Double(failed), unit: "answers", goal: "0",
                met: failed == 0),
        ]
        measures += try flood(folder: folder)
        return measures
    }

    private static func list(_ values: [Double], _ digits: Int) -> String {
        values.map { String(format: "%.\(digits)f", $0) }.joined(separator: ", ")
    }

    /// The user plus system CPU time of a running process so far (`/proc/PID/stat`), in seconds.
    static func cpuSeconds(of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return .nan }
        // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The modest key's p99 alone, then while `flood-key` floods from 32 connections (both at 2,000 events/s).
    static func flood(folder: URL) throws -> [Measure] {
        let config = folder.appendingPathComponent("flood.json").path
        let json =
            #"{"write_keys": ["flood-key", "modest-key"], "limits": {"events_per_second_per_key": 2000, "#
            + #""burst_per_key": 2000}}"#
        try json.write(toFile: config, atomically: true, encoding: .utf8)
        let server = try ServeProcess(folder: folder, name: "flood", arguments: ["--config", config])
        defer { _ = server.stop() }
        let port = server.port
        var realistic = RealisticLines(style: .random, seed: 7)
        let alone = modest(port: port, seconds: 8, lines: (0..<4_000).map { _ in realistic.next() })
        let flooding = Atomic<Bool>(true)
        let floodStatuses = StateLock<[Int: Int]>([:])
        let loaded = StateLock<(statuses: [Int: Int], latencies: [UInt64])>(([:], []))
        var floodLines = WideLines(seed: 11)
        let floodBodies = (0..<64).map { _ in
            KeepAliveConnection.request(
                path: "/v1/events", key: "flood-key", contentType: "application/x-ndjson",
                body: Array((0..<100).map { _ in floodLines.next() }.joined(separator: "\n").utf8))
        }
        let modestLines = (0..<4_000).map { _ in realistic.next() }
        onThreads(33) { index in
            if index == 32 {
                usleep(1_000_000)  // once the flood has spent its burst
                let run = modest(port: port, seconds: 8, lines: modestLines)
                loaded.withLock { $0 = run }
                flooding.store(false, ordering: .relaxed)
                return
            }
            let connection = KeepAliveConnection(port: port)
            var statuses: [Int: Int] = [:]
            var request = index
            let start = nowNanoseconds()
            while flooding.load(ordering: .relaxed), nowNanoseconds() - start < 60_000_000_000 {
                statuses[connection.send(floodBodies[request % floodBodies.count]), default: 0] += 1
                request += 1
            }
            floodStatuses.withLock { $0.merge(statuses, uniquingKeysWith: +) }
        }
        let under = loaded.withLock { $0 }
        let flood = floodStatuses.withLock { $0 }
        let aloneP99 = percentile(alone.latencies.sorted(), 0.99) / 1e6
        let underP99 = percentile(under.latencies.sorted(), 0.99) / 1e6
        let modestRefused = (alone.statuses.merging(under.statuses, uniquingKeysWith: +))
            .filter { $0.key != 200 }.values.reduce(0, +)
        return [
            Measure.compared(
                suite: suite, name: "modest_key_p99_ms_under_a_32_connection_flood", value: underP99, unit: "ms",
                baseline: "its p99 alone on the same server (flood: \(flood[200, default: 0]) 200, "
                    + "\(flood[429, default: 0]) 429)",
                baselineValue: aloneP99, goal: "ratio <= 2", check: { $0 <= 2 }),
            Measure.absolute(
                suite: suite, name: "modest_key_answers_not_200", value: Double(modestRefused), unit: "answers",
                goal: "0", met: modestRefused == 0),
        ]
    }

    /// 10 events every 20 ms on one keep-alive connection for `seconds`: the statuses and latencies (ns).
    static func modest(port: Int, seconds: Double, lines: [String]) -> (statuses: [Int: Int], latencies: [UInt64]) {
        let connection = KeepAliveConnection(port: port)
        var statuses: [Int: Int] = [:]
        var latencies: [UInt64] = []
        let start = nowNanoseconds()
        while Double(nowNanoseconds() - start) / 1e9 < seconds {
            let body = (0..<10).map { lines[(latencies.count * 10 + $0) % lines.count] }.joined(separator: "\n")
            let request = KeepAliveConnection.request(
                path: "/v1/events", key: "modest-key", contentType: "application/x-ndjson", body: Array(body.utf8))
            let began = nowNanoseconds()
            statuses[connection.send(request), default: 0] += 1
            latencies.append(nowNanoseconds() - began)
            usleep(20_000)
        }
        return (statuses, latencies)
    }
}
