#if Server

import EventStoreInterface
import Foundation
import MeasurementEvents
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `alstats serve` as a real listening process (CI builds it with `swift build --build-tests` first).
@Suite(.serialized) struct ServeProcessTests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func concurrentClientsWithOverlappingIDsStoreEachIDOnceAndEveryReceiptIsTrue() throws {
        let fixture = ServerFixture()
        let server = try ServeProcess(database: fixture.path)
        let accepted = Atomic<Int>(0)
        let wrong = StateLock<[String]>([])
        // 8 clients, 10 requests of 50 ids each, drawn from 400 shared ids.
        onThreads(8) { client in
            var generator = SeededGenerator(seed: UInt64(client + 1))
            for _ in 0..<10 {
                let ids = (0..<50).map { _ in "shared-\(Int.random(in: 0..<400, using: &generator))" }
                let body = ids.map { eventLine(id: $0) }.joined(separator: "\n")
                guard let answer = server.request("POST", "/v1/events", body: body), answer.status == 200,
                    let receipt = try? JSONValue.parse(answer.body)
                else {
                    wrong.withLock { $0.append("no receipt") }
                    continue
                }
                let new = receipt["accepted"].flatMap { if case .int(let n) = $0 { Int(n) } else { nil } } ?? -1
                let duplicates =
                    receipt["duplicates"].flatMap { if case .int(let n) = $0 { Int(n) } else { nil } } ?? -1
                if new + duplicates != 50 { wrong.withLock { $0.append(answer.body) } }
                accepted.add(new, ordering: .relaxed)
            }
        }
        #expect(wrong.withLock { $0 }.isEmpty)
        #expect(server.stop(with: SIGTERM) == 0)
        let stored = try fixture.storedEvents()
        #expect(stored.count == accepted.load(ordering: .relaxed))
        #expect(stored.keys.allSatisfy { $0.hasPrefix("shared-") })
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func aFullQueueAnswers503WithRetryAfterAndMemoryStaysBounded() throws {
        let fixture = ServerFixture()
        let server = try ServeProcess(database: fixture.path, arguments: ["--queue-events", "100"])
        let statuses = StateLock<[Int: Int]>([:])
        let retryAfterMissing = Atomic<Int>(0)
        onThreads(24) { client in
            for request in 0..<8 {
                let body = (0..<200).map { eventLine(id: "o\(client)-\(request)-\($0)") }.joined(separator: "\n")
                let answer = server.request("POST", "/v1/events", body: body)
                let status = answer?.status ?? 0
                statuses.withLock { $0[status, default: 0] += 1 }
                if status == 503, answer?.headers["retry-after"] == nil { retryAfterMissing.add(1, ordering: .relaxed) }
            }
        }
        let seen = statuses.withLock { $0 }
        #expect(Set(seen.keys).isSubset(of: [200, 503]), "\(seen)")
        #expect(seen[503, default: 0] > 0, "\(seen)")
        #expect(retryAfterMissing.load(ordering: .relaxed) == 0)
        #expect(server.residentKiB < 256 * 1024)
        #expect(server.stop(with: SIGTERM) == 0)
        #expect(try fixture.storedEvents().count == seen[200, default: 0] * 200)
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"), arguments: [SIGTERM, SIGKILL])
    func everyAcknowledgedEventIsStoredWhenTheServerIsStoppedDuringLoad(signal: Int32) throws {
        let fixture = ServerFixture()
        let server = try ServeProcess(database: fixture.path)
        let acknowledged = StateLock<Set<String>>([])
        let stopped = Atomic<Bool>(false)
        let status = StateLock<Int32?>(nil)
        onThreads(7) { client in
            if client == 0 {
                // Stop once enough has been acknowledged, while the others keep sending (or after two minutes
                // without: the count below then fails the test instead of hanging it).
                let deadline = ContinuousClock.now + .seconds(120)
                while acknowledged.withLock({ $0.count }) < 2_000 && ContinuousClock.now < deadline { usleep(1_000) }
                status.withLock { $0 = server.stop(with: signal) }
                stopped.store(true, ordering: .relaxed)
                return
            }
            var request = 0
            while !stopped.load(ordering: .relaxed) {
                let ids = (0..<100).map { "k\(client)-\(request)-\($0)" }
                request += 1
                let body = ids.map { eventLine(id: $0) }.joined(separator: "\n")
                guard let answer = server.request("POST", "/v1/events", body: body) else { continue }
                if (200..<300).contains(answer.status) { acknowledged.withLock { $0.formUnion(ids) } }
            }
        }
        if signal == SIGTERM { #expect(status.withLock { $0 } == 0) }
        let stored = Set(try fixture.storedEvents().keys)
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= 2_000)
        #expect(acked.isSubset(of: stored), "\(acked.subtracting(stored).count) acknowledged events missing")
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theReportOverHTTPEqualsTheCLIReportJSON() throws {
        let fixture = ServerFixture()
        let server = try ServeProcess(database: fixture.path)
        var lines: [String] = []
        for index in 0..<120 {
            let name = ["al_nav_in", "al_nav_out", "al_ref_back_out"][index % 3]
            let ts = ServerFixture.now + Int64(index) * 1_800_000
            lines.append(eventLine(id: "c\(index)", name: name, ts: ts, ref: index % 4 == 0 ? "feed" : "ad"))
        }
        let body = lines.joined(separator: "\n")
        #expect(server.request("POST", "/v1/events", body: body)?.status == 200)
        for (parameters, options) in [
            ("", [String]()),
            (
                "?since=2025-11-21&ref=feed&tz=Europe/Paris",
                ["--since", "2025-11-21", "--ref", "feed", "--tz", "Europe/Paris"]
            ),
        ] {
            let http = server.request("GET", "/api/report\(parameters)", key: "r1")
            let cli = try runAlstats(["report", "--database", fixture.path, "--format", "json"] + options)
            #expect(http?.status == 200)
            #expect(http?.body == cli)
        }
        #expect(server.request("GET", "/api/report", key: nil)?.status == 401)
        #expect(server.stop(with: SIGINT) == 0)
        #expect(!server.stderr.contains("w1"), "a key reached the log")
        #expect(server.stderr.contains("POST /v1/events") || server.stderr.contains("path=/v1/events"))
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theComparedAndFilteredReportOverHTTPEqualsTheCLIs() throws {
        let fixture = ServerFixture()
        let server = try ServeProcess(database: fixture.path)
        // Two weeks from 2025-11-21 (ServerFixture.now): shop.example.com works in the first, fails in the second.
        var lines: [String] = []
        for index in 0..<1_400 {
            let ts = ServerFixture.now + Int64(index) * 864_000  // 14 days, 100 a day
            let second = index >= 700
            let host = ["shop.example.com", "video.example.org"][index % 2]
            let ok = host == "video.example.org" || !second ? index % 10 != 0 : index % 10 < 3
            let fields =
                #""success":"\#(ok ? 1 : 0)","type":"\#(ok ? "app" : "fail")","ref":"\#(index % 3 == 0 ? "feed" : "ad")","#
                + #""sourceURLHost":"\#(host)""# + (ok ? "" : #","error":"\#(second ? "open_failed" : "no_target")""#)
            lines.append(#"{"id":"k\#(index)","name":"al_nav_out","ts":\#(ts),"fields":{\#(fields)}}"#)
        }
        for batch in stride(from: 0, to: lines.count, by: 500) {
            let body = lines[batch..<min(batch + 500, lines.count)].joined(separator: "\n")
            #expect(server.request("POST", "/v1/events", body: body)?.status == 200)
        }
        let window = ["--since", "2025-11-28", "--until", "2025-12-05", "--tz", "Europe/Paris"]
        for (parameters, options) in [
            (
                "?compare=previous&since=2025-11-28&until=2025-12-05&tz=Europe/Paris",
                window + ["--compare", "previous"]
            ),
            (
                "?compare=previous&source_host=shop.example.com&since=2025-11-28&until=2025-12-05&tz=Europe/Paris",
                window + ["--compare", "previous", "--source-host", "shop.example.com"]
            ),
            ("?source_host=video.example.org&ref=feed", ["--source-host", "video.example.org", "--ref", "feed"]),
            (
                "?link=invite&compare=previous&since=2025-11-28&until=2025-12-05&tz=Europe/Paris",
                window + ["--link", "invite", "--compare", "previous"]
            ),
        ] {
            let http = server.request("GET", "/api/report\(parameters)", key: "r1")
            let cli = try runAlstats(["report", "--database", fixture.path, "--format", "json"] + options)
            #expect(http?.status == 200)
            #expect(http?.body == cli, "\(parameters)")
        }
        let http = try #require(
            server.request(
                "GET",
                "/api/report?compare=previous&source_host=shop.example.com&since=2025-11-28&until=2025-12-05&tz=Europe/Paris",
                key: "r1"))
        let report = try JSONValue.parse(http.body)
        guard case .array(let alerts) = report["alerts"] else { throw ReportFailure("no alerts in \(http.body)") }
        #expect(alerts.first?["dimension"] == "all" || alerts.first?["dimension"] == "source_host")
        #expect(alerts.contains { $0["value"] == "shop.example.com" && $0["top_failure"]?["error"] == "open_failed" })
        #expect(report["previous"]?["window"]?["until"] == report["window"]?["since"])
        #expect(server.request("GET", "/api/report?compare=next", key: "r1")?.status == 400)
        #expect(
            server.request("GET", "/api/report?compare=previous&since=2025-12-05&until=2025-11-28", key: "r1")?.status
                == 400)
        #expect(server.stop(with: SIGINT) == 0)
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func jsonLogsAreOneObjectPerRequestWithoutTheKey() throws {
        let fixture = ServerFixture()
        let server = try ServeProcess(database: fixture.path, arguments: ["--log-format", "json"])
        #expect(server.request("POST", "/v1/events", body: eventLine(id: "j1"))?.status == 200)
        #expect(server.request("POST", "/v1/events", key: "not-a-key", body: eventLine(id: "j2"))?.status == 401)
        #expect(server.stop(with: SIGTERM) == 0)
        let requests = server.stderr.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
            .filter { $0["message"] == "request" }
        #expect(requests.map { $0["status"] } == ["200", "401"])
        #expect(requests.first?["events"] == "1")
        #expect(requests.allSatisfy { $0["path"] == "/v1/events" && $0["method"] == "POST" })
        #expect(!server.stderr.contains("not-a-key") && !server.stderr.contains("w1"))
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func serveRefusesToStartWithoutAWriteKeyOrWithNoAuthOffLoopback() throws {
        let fixture = ServerFixture()
        let noKey = try runAlstatsStatus(["serve", "--database", fixture.path, "--port", "0"])
        #expect(noKey.status == 64)
        #expect(noKey.errors.contains("ALSTATS_WRITE_KEYS"))
        let open = try runAlstatsStatus(["serve", "--database", fixture.path, "--no-auth", "--host", "0.0.0.0"])
        #expect(open.status == 64)
        #expect(open.errors.contains("--no-auth"))
    }
}

/// Runs `body(index)` on `count` threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// The standard output of the built `alstats` run with `arguments`.
func runAlstats(_ arguments: [String]) throws -> String {
    try runAlstatsStatus(arguments).output
}

/// Status, standard output and standard error of the built `alstats` run with `arguments` (no keys set).
func runAlstatsStatus(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try BuiltAlstats.require())
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    for name in ["ALSTATS_DATABASE", "ALSTATS_WRITE_KEYS", "ALSTATS_READ_KEYS", "ALSTATS_ADMIN_KEYS"] {
        environment[name] = nil
    }
    process.environment = environment
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

struct ReportFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

#endif
