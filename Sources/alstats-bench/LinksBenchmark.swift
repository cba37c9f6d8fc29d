import EventStoreInterface
import EventStoreSQLite
import Foundation
import HostedLinks
import MeasurementEvents
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `alstats-bench links` (issue 14): the release `alstats serve` answering `GET /l/{slug}` to 64 keep-alive
/// clients on loopback (the load on the same 2 cores), side by side with a bare Hummingbird application in
/// the bench process answering the same bytes under the same load (the calibration: "ours / bare" is our own
/// cost, the rest is the client's and the machine's), and our own `GET /healthz` against the bare one (the
/// middleware's cost). Goals: at least 20,000 pages/s, p99 at most 10 ms, and every page answered recorded
/// as a hit (or counted as lost in completeness).
enum LinksBenchmark {
    static let suite = "links"
    static let link = #"""
        {"slug":"invite","title":"Couchin'","pass_query":["referral"],
         "ios":[{"url":"couchin://invite","app_store_id":"123","app_name":"Couchin'"}],
         "android":[{"url":"couchin://invite","package":"com.example.couchin"}],
         "web":{"url":"https://couchin.example/invite"}}
        """#

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let clients = Int(arguments.values["clients"] ?? "") ?? 64
        let seconds = Double(arguments.values["seconds"] ?? "") ?? (arguments.quick ? 2 : 10)
        let alstats = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("alstats").path
        guard FileManager.default.isExecutableFile(atPath: alstats) else {
            throw BenchFailure("build the alstats binary next to alstats-bench first: swift build -c release")
        }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "alstats-bench-links-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bare = try bareLoad(clients: clients, seconds: seconds)
        let database = folder.appendingPathComponent("links.sqlite").path
        let server = try Server(alstats: alstats, database: database)
        let put =
            "PUT /api/links/invite HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer a1\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(link.utf8.count)\r\n\r\n\(link)"
        guard KeepAliveConnection(port: server.port).send(Array(put.utf8)) == 200 else {
            server.stop()
            throw BenchFailure("alstats serve did not store the link")
        }
        let health = load(port: server.port, request: healthRequest, clients: clients, seconds: seconds)
        let pages = load(port: server.port, request: pageRequest, clients: clients, seconds: seconds)
        server.stop()
        let store = try SQLiteEventStore(path: database, options: SQLiteEventStore.Options(create: false))
        var hits = 0
        try store.forEachEvent { if $0.name == "alstats_link_hit" { hits += 1 } }
        let lost = try store.completeness()["dropped"]?.values.reduce(0, +) ?? 0
        return measures(pages: pages, health: health, bare: bare) + [
            Measure.absolute(
                suite: suite, name: "hits_recorded_minus_answered", value: Double(hits + lost - pages.answered),
                unit: "hits", goal: "0 (\(pages.answered) answered, \(hits) stored, \(lost) counted lost)",
                met: hits + lost == pages.answered)
        ]
    }

    static let pageRequest =
        "GET /l/invite?ref=bench&referral=42 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "User-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)\r\n\r\n"
    static let healthRequest = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    /// The pages and healthz of a bare Hummingbird application in this process under the same load (the
    /// calibration: the most this client reaches on this machine), or none when the bench was built without
    /// the server packages.
    static func bareLoad(clients: Int, seconds: Double) throws -> (pages: Load, health: Load)? {
        #if !Server
        return nil
        #else
        guard case .object(let object) = try JSONValue.parse(link) else { throw BenchFailure("bench link") }
        let hosted = try HostedLink(json: .object(object))
        let page = HostedLinkPage(
            link: hosted, publicURL: "http://127.0.0.1", query: [("ref", "bench"), ("referral", "42")])
        let server = try BareServer.start(page: Array(page.html().utf8))
        defer { server.stop() }
        let pages = load(port: server.port, request: pageRequest, clients: clients, seconds: seconds)
        let health = load(port: server.port, request: healthRequest, clients: clients, seconds: seconds)
        return (pages, health)
        #endif
    }

    /// Pages per second and p99, each against the bare application's same route when it ran, else against
    /// our own `GET /healthz`.
    static func measures(pages: Load, health: Load, bare: (pages: Load, health: Load)?) -> [Measure] {
        let pageBaseline =
            bare.map { ("bare Hummingbird GET /l/invite, same bytes", $0.pages) }
            ?? ("GET /healthz of the same server", health)
        var measures = [
            Measure.compared(
                suite: suite, name: "pages_per_second", value: pages.perSecond, unit: "/s",
                baseline: pageBaseline.0, baselineValue: pageBaseline.1.perSecond,
                goal: ">= 20,000 pages/s", check: { _ in pages.perSecond >= 20_000 }),
            Measure.compared(
                suite: suite, name: "page_p99", value: pages.p99 / 1e6, unit: "ms", baseline: pageBaseline.0 + " p99",
                baselineValue: pageBaseline.1.p99 / 1e6, goal: "<= 10 ms", check: { _ in pages.p99 <= 10e6 }),
        ]
        if let bare {
            measures.append(
                Measure.compared(
                    suite: suite, name: "healthz_per_second", value: health.perSecond, unit: "/s",
                    baseline: "bare Hummingbird GET /healthz", baselineValue: bare.health.perSecond,
                    goal: "the middleware's cost (ratio)", check: { _ in true }))
        }
        return measures
    }

    /// What one load run measured.
    struct Load {
        var answered: Int
        var failed: Int
        var perSecond: Double
        var p99: Double
    }

    /// `clients` threads, each on its own keep-alive connection, sending `request` for `seconds`.
    static func load(port: Int, request: String, clients: Int, seconds: Double) -> Load {
        let bytes = Array(request.utf8)
        let latencies = StateLock<[UInt64]>([])
        let failed = Atomic<Int>(0)
        let deadline = nowNanoseconds() + UInt64(seconds * 1e9)
        let begin = nowNanoseconds()
        let group = DispatchGroup()
        for _ in 0..<clients {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let client = KeepAliveConnection(port: port)
                var own: [UInt64] = []
                own.reserveCapacity(100_000)
                while nowNanoseconds() < deadline {
                    let start = nowNanoseconds()
                    guard client.send(bytes) == 200 else {
                        failed.add(1, ordering: .relaxed)
                        return
                    }
                    own.append(nowNanoseconds() - start)
                }
                latencies.withLock { $0 += own }
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
        group.wait()
        let elapsed = Double(nowNanoseconds() - begin) / 1e9
        let sorted = latencies.withLock { $0 }.sorted()
        return Load(
            answered: sorted.count, failed: failed.load(ordering: .relaxed),
            perSecond: Double(sorted.count) / elapsed, p99: percentile(sorted, 0.99))
    }

    /// The release `alstats serve` on a free loopback port, with an admin key `a1`.
    final class Server {
        let process = Process()
        let port: Int

        init(alstats: String, database: String) throws {
            process.executableURL = URL(fileURLWithPath: alstats)
            process.arguments = ["serve", "--database", database, "--port", "0"]
            var environment = ProcessInfo.processInfo.environment
            environment["ALSTATS_WRITE_KEYS"] = "w1"
            environment["ALSTATS_ADMIN_KEYS"] = "a1"
            process.environment = environment
            let pipe = Pipe()
            process.standardError = pipe
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var collected = ""
            var found: Int?
            while found == nil {
                let data = pipe.fileHandleForReading.availableData
                guard !data.isEmpty else { break }
                collected += String(decoding: data, as: UTF8.self)
                if let range = collected.range(of: #"listening on http://[^ ]+:(\d+)"#, options: .regularExpression) {
                    found = Int(collected[range].split(separator: ":").last ?? "")
                }
            }
            guard let found else { throw BenchFailure("alstats serve did not start: \(collected)") }
            port = found
            // Keep reading its log so that it never blocks on a full pipe: blocking reads on a thread of their
            // own, to the end of the pipe (a readabilityHandler's dispatch source can race the pipe's close on
            // Linux, as the tests' ServeProcess found).
            let log = pipe.fileHandleForReading
            Thread.detachNewThread {
                while !log.availableData.isEmpty {}
            }
        }

        /// SIGTERM, then waits: the server drains, the recorder hands its hits over, the writer commits.
        func stop() {
            process.interrupt()
            process.waitUntilExit()
        }
    }
}
