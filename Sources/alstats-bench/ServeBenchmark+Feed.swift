import Foundation

extension ServeBenchmark {
    /// The collector on the realistic feed (``FeedLines``): `count` events in bodies of 20 over 64 keep-alive
    /// connections as fast as answered, against `alstats ingest` of the same lines, the two alternating `runs`
    /// times and compared by their medians; the p99 latency is of every request of those runs (closed loop, so at
    /// the collector's full load, not paced below it). Also printed: the CPU each spends an event (the server's
    /// process, all threads, against the ingest's), which the clients sharing the cores do not blur.
    static func feed(count: Int, seed: UInt64, runs: Int, folder: URL) throws -> [Measure] {
        var generator = FeedLines(seed: seed)
        let lines = (0..<count).map { _ in generator.next() }
        let input = folder.appendingPathComponent("events-feed.ndjson").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: false, encoding: .utf8)
        let bodies = batches(lines, of: 20)
        var ingestRates: [Double] = []
        var serveRates: [Double] = []
        var ingestCPU: [Double] = []
        var serveCPU: [Double] = []
        var latencies: [UInt64] = []
        var statuses: [Int: Int] = [:]
        for run in 0..<runs {
            let database = folder.appendingPathComponent("feed-ingest.sqlite").path
            let ingest = try IngestBenchmark.ingest(input, into: database)
            removeDatabase(atPath: database)
            ingestRates.append(Double(count) / ingest.seconds)
            ingestCPU.append(ingest.cpuSeconds / Double(count) * 1e6)
            let server = try ServeProcess(folder: folder, name: "feed", arguments: [])
            let load = drive(port: server.port, bodies: bodies, clients: clients)
            serveCPU.append(LimitsBenchmark.cpuSeconds(of: server.process.processIdentifier) / Double(count) * 1e6)
            _ = server.stop()
            removeDatabase(atPath: folder.appendingPathComponent("feed.sqlite").path)
            serveRates.append(Double(count) / load.seconds)
            latencies += load.latencies
            statuses.merge(load.statuses, uniquingKeysWith: +)
            print(
                "serve: feed run \(run + 1): collector \(IngestBenchmark.rate(count, load.seconds))/s, ingest "
                    + "\(IngestBenchmark.rate(count, ingest.seconds))/s")
        }
        let p99 = percentile(latencies.sorted(), 0.99) / 1e6
        return [
            Measure.compared(
                suite: suite, name: "serve_feed_events_per_s_batches_of_20", value: median(serveRates),
                unit: "events/s", baseline: "alstats ingest of the same feed lines (median of \(runs))",
                baselineValue: median(ingestRates), goal: "ratio >= 1.0", check: { $0 >= 1.0 }),
            Measure.compared(
                suite: suite, name: "serve_feed_cpu_us_per_event", value: median(serveCPU), unit: "µs",
                baseline: "alstats ingest's CPU an event (median of \(runs))", baselineValue: median(ingestCPU),
                goal: "none: the clients' share of the cores left out", check: { _ in true }),
            Measure.absolute(
                suite: suite, name: "serve_feed_p99_ms_batches_of_20", value: p99, unit: "ms",
                goal: "<= 50 ms, 64 connections at full load", met: p99 <= 50),
            unexpected(statuses: statuses, name: "serve_feed_non_2xx_answers"),
        ]
    }
}
