import EventStoreInterface
import EventStoreSQLite
import EventUpload
import Foundation
import MeasurementEvents

#if Server && !ALSTATS_URLSESSION
import EventUploadHTTPClient
#endif

/// `alstats-bench upload`: `alstats push` of realistic events to a local `alstats serve` (the binary beside this one,
/// started here) against `alstats ingest` of the same events in the same run, with the push's CPU per event
/// (``PushBenchmark``); the device path, bus → ``HTTPEventSink`` → collector, by wall time against that ingest and
/// by the CPU of this process against ``SQLiteEventSink`` for the same events; the uploader's gzip against zlib's
/// default level; the cost of `post` with the sink attached against `NotificationCenter.post`; and resident memory
/// while the collector is down for a million posts.
/// Options: `--events N` (default 200,000; 20,000 with `--quick`), `--posts N` (default 1,000,000; 200,000 with
/// `--quick`), `--seed S` (default 1).
enum UploadBenchmark {
    static let suite = "upload"

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let events = Int(arguments.values["events"] ?? "") ?? (arguments.quick ? 20_000 : 200_000)
        let posts = Int(arguments.values["posts"] ?? "") ?? (arguments.quick ? 200_000 : 1_000_000)
        let seed = UInt64(arguments.values["seed"] ?? "") ?? 1
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "alstats-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = try PushBenchmark.inputs(count: events, seed: seed, in: folder)
        let (pushMeasures, ingestRate) = try PushBenchmark.pushAgainstIngest(inputs, in: folder)
        var measures = pushMeasures
        measures += try devicePath(inputs, ingestRate: ingestRate, in: folder)
        measures += try PushBenchmark.gzipLevels(inputs)
        measures += try postCost(posts: posts, in: folder)
        measures += try memoryWhileDown(posts: posts, in: folder)
        return measures
    }

    /// Runs `body` with the bench's `alstats serve` on a free port (its URL and process id), stopped afterwards.
    static func withServer<Result>(
        database: String, _ body: (URL, Int32) async throws -> Result
    ) async throws -> Result {
        let alstats = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("alstats").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: alstats)
        process.arguments = ["serve", "--database", database, "--host", "127.0.0.1", "--port", "0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["ALSTATS_WRITE_KEYS": "bench"]) { $1 }
        let log = database + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        for _ in 0..<600 {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on http://[^ ]+:\d+"#, options: .regularExpression) {
                let url = URL(string: String(text[range].dropFirst("listening on ".count)))!
                return try await body(url, process.processIdentifier)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchFailure("alstats serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// The device path: the same events posted on a bus to ``HTTPEventSink`` (outbox, then HTTP to `alstats serve`
    /// into its store) and, separately, to ``SQLiteEventSink``. Wall time against `alstats ingest` of the events,
    /// and the CPU of this process (every thread; the collector is another process) per event against the
    /// SQLite sink's.
    static func devicePath(_ inputs: PushBenchmark.Inputs, ingestRate: Double, in folder: URL) throws -> [Measure] {
        var events: [MeasurementEvent] = []
        events.reserveCapacity(inputs.count)
        try SQLiteEventStore(path: inputs.database).forEachEvent { events.append($0) }
        let local = try sqliteSinkCPU(events, path: folder.appendingPathComponent("device-local.sqlite").path)
        let collector = folder.appendingPathComponent("device-collector.sqlite").path
        let (seconds, cpu) = try blocking { [events] in
            try await withServer(database: collector) { url, _ in
                // An outbox that holds the whole run (the default 64 MiB would drop the oldest, counted).
                let sink = try HTTPEventSink(
                    .init(
                        collector: url, writeKey: "bench",
                        outboxPath: folder.appendingPathComponent("outbox.sqlite").path,
                        maximumOutboxBytes: 1 << 30),
                    transport: platformTransport())
                let bus = MeasurementEventBus()
                // A buffer for the whole run, as `alstats demo` sizes it: the bench posts faster than any app.
                bus.attach(sink, options: ObserverOptions(label: "upload", bufferCapacity: events.count))
                let (start, startCPU) = (nowNanoseconds(), selfCPUSeconds())
                let background = Task { await sink.run() }
                for event in events { _ = bus.publish(event) }
                await bus.flush()
                try await sink.upload()
                let elapsed = Double(nowNanoseconds() - start) / 1e9
                let cpu = selfCPUSeconds() - startCPU
                let dropped = sink.status.dropped.merging(bus.statistics.observers[0].dropped) { $0 + $1 }
                guard dropped.isEmpty else { throw BenchFailure("the upload dropped events: \(dropped)") }
                background.cancel()
                await bus.close()
                return (elapsed, cpu)
            }
        }
        let stored = try SQLiteEventStore(path: collector).count()
        guard stored == events.count else {
            throw BenchFailure("the collector stored \(stored) of \(events.count) events")
        }
        let count = Double(events.count)
        return [
            Measure.compared(
                suite: suite, name: "bus_to_collector_events_per_s", value: count / seconds, unit: "events/s",
                baseline: "alstats ingest of the same events", baselineValue: ingestRate,
                goal: "ratio >= 0.6", check: { $0 >= 0.6 }),
            Measure.compared(
                suite: suite, name: "bus_to_collector_cpu_us_per_event", value: cpu / count * 1e6, unit: "µs",
                baseline: "SQLiteEventSink, the same events", baselineValue: local / count * 1e6,
                goal: "ratio <= 2", check: { $0 <= 2 }),
        ]
    }

    /// CPU seconds of this process while `events` go through a bus into a fresh ``SQLiteEventSink``.
    static func sqliteSinkCPU(_ events: [MeasurementEvent], path: String) throws -> Double {
        let sink = try SQLiteEventSink(path: path)
        let bus = MeasurementEventBus()
        bus.attach(sink, options: ObserverOptions(label: "store", bufferCapacity: events.count))
        let start = selfCPUSeconds()
        for event in events { _ = bus.publish(event) }
        bus.flush()
        let cpu = selfCPUSeconds() - start
        bus.close()
        guard sink.inserted == events.count else {
            throw BenchFailure("SQLiteEventSink stored \(sink.inserted) of \(events.count) events")
        }
        removeDatabase(atPath: path)
        return cpu
    }

    /// The transport `alstats push` uses here: AsyncHTTPClient on Linux, `URLSession` elsewhere.
    static func platformTransport() -> any UploadTransport {
        #if ALSTATS_URLSESSION || !Server
        URLSessionUploadTransport()
        #else
        AsyncHTTPClientUploadTransport()
        #endif
    }

    /// `post` on the caller's thread with the sink attached (its collector unreachable, so the outbox only
    /// grows), against `NotificationCenter.post`.
    static func postCost(posts: Int, in folder: URL) throws -> [Measure] {
        let sink = try unreachableSink(outbox: folder.appendingPathComponent("cost.sqlite").path)
        let bus = MeasurementEventBus()
        bus.attach(sink, options: ObserverOptions(label: "upload", bufferCapacity: 65_536))
        let (ours, theirs, _) = BusBenchmark.timedPosts(on: bus, posts: posts, fields: BusBenchmark.fields)
        bus.close()
        return [
            Measure.compared(
                suite: suite, name: "post_with_upload_sink_p50_ns", value: percentile(ours, 0.5), unit: "ns",
                baseline: "NotificationCenter.post", baselineValue: percentile(theirs, 0.5), goal: "ratio <= 0.5",
                check: { $0 <= 0.5 })
        ]
    }

    /// Resident memory growth over `posts` posts while the collector is down and the uploader retries: the
    /// outbox is on disk (bounded at 64 MiB), so memory must not grow with the posts.
    static func memoryWhileDown(posts: Int, in folder: URL) throws -> [Measure] {
        let sink = try unreachableSink(outbox: folder.appendingPathComponent("down.sqlite").path)
        let bus = MeasurementEventBus()
        bus.attach(sink)
        let background = Task { await sink.run() }
        let before = residentBytes()
        var peak = before
        for index in 0..<posts {
            bus.post(EventName.navOut, fields: BusBenchmark.fields)
            if index % 50_000 == 49_999 {
                bus.flush()
                peak = max(peak, residentBytes())
            }
        }
        bus.flush()
        peak = max(peak, residentBytes())
        background.cancel()
        bus.close()
        let status = sink.status
        let lost = bus.statistics.totalDropped
        let accounted = status.pending + status.dropped.values.reduce(0, +) + lost
        let growth = Double(peak - before)
        let bound = 64.0 * 1_048_576
        return [
            Measure.absolute(
                suite: suite, name: "rss_growth_collector_down_bytes", value: growth, unit: "bytes",
                goal: "<= \(Int(bound)) for \(posts) posts", met: growth <= bound),
            Measure.absolute(
                suite: suite, name: "unaccounted_posts_collector_down", value: Double(posts - accounted),
                unit: "events", goal: "0 (pending + counted drops = posted)", met: accounted == posts),
        ]
    }

    /// A sink whose collector never answers (a closed port): its outbox only grows, its uploader retries.
    static func unreachableSink(outbox: String) throws -> HTTPEventSink {
        try HTTPEventSink(
            .init(collector: URL(string: "http://127.0.0.1:9")!, writeKey: "bench", outboxPath: outbox),
            transport: platformTransport())
    }

    /// Runs async `body` to its end from synchronous code.
    static func blocking<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) throws -> Result {
        let box = ResultBox<Result>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try box.get()
    }
}

/// The result of an async body, handed to the thread waiting for it.
final class ResultBox<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is written once before the semaphore is signalled and read after the wait.
    private var value: Result<Value, any Error>?
    func set(_ result: Result<Value, any Error>) { value = result }
    func get() throws -> Value { try value!.get() }
}
