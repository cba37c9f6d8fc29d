#if Server

import EventReport
import EventStoreInterface
import EventStoreSQLite
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

@testable import EventServer

/// The `retention` setting of `alstats serve` (docs/collector.md, "Retention"): the server prunes once its store is
/// ready and again when the cut-off moves to the next day, on a manual clock whose waits the test watches.
@Suite(.timeLimit(.minutes(5)))
struct RetentionServiceTests {
    static let day: Int64 = 86_400_000
    /// Ten days after the fixture's events start.
    static let now = ServerFixture.now + 10 * day

    /// A manual clock that also reports each wait it is asked for: the service waits once it has pruned, so the
    /// test waits for that wait instead of for time.
    final class WatchedClock: AlertClock {
        let clock: ManualAlertClock
        let waits: AsyncStream<Int64>
        private let continuation: AsyncStream<Int64>.Continuation

        init(milliseconds: Int64) {
            clock = ManualAlertClock(milliseconds: milliseconds)
            (waits, continuation) = AsyncStream.makeStream(of: Int64.self)
        }

        func nowMilliseconds() -> Int64 { clock.nowMilliseconds() }

        func sleep(until deadline: Int64) async throws {
            continuation.yield(deadline)
            try await clock.sleep(until: deadline)
        }
    }

    /// Writes 40 events, one every 6 hours from the fixture's time.
    static func fill(_ path: String) throws {
        let store = try SQLiteEventStore(path: path)
        try store.write(
            (0..<40).map {
                MeasurementEvent(
                    id: EventID("e\($0)"), name: EventName.navOut, fields: ["ref": "feed", "success": "1"],
                    timestamp: ServerFixture.now + Int64($0) * 21_600_000)
            })
    }

    @Test func theServerPrunesOnceReadyAndEachDayAfterAndItsReportSaysFromWhen() async throws {
        let fixture = ServerFixture()
        try Self.fill(fixture.path)
        let clock = WatchedClock(milliseconds: Self.now)
        let app = try fixture.application { configuration in
            configuration.retention = RetentionPeriod("3d")
            configuration.retentionClock = clock
        }
        let store = try SQLiteEventStore(path: fixture.path, options: .init(create: false))
        try await app.test(.router) { client in
            var waits = clock.waits.makeAsyncIterator()
            let next = try #require(await waits.next())
            #expect(next == Self.now - 3 * Self.day + Self.day + 3 * Self.day, "the next cut-off: a day later")
            #expect(try store.rawEventsSince() == Self.now - 3 * Self.day)
            #expect(try store.count() == 12)
            try await client.execute(
                uri: "/api/report", method: .get, headers: headers(key: ServerFixture.readKey)
            ) { response in
                let report = json(response)
                guard case .object(let window)? = report["window"] else {
                    Issue.record("no window in \(report)")
                    return
                }
                #expect(window["raw_events_since"] == .string("2025-11-28T00:00:00.000Z"))
                #expect(report["totals"]?.objectValue?["events"] == .int(40), "the rollups keep every event")
            }
            clock.clock.advance(by: next - Self.now)
            _ = await waits.next()
            #expect(try store.rawEventsSince() == Self.now - 2 * Self.day)
            #expect(try store.count() == 8)
            #expect(String(buffer: try await metrics(client)).contains("alstats_pruned_events_total 32"))
        }
    }

    /// A store that fails its first prune, then prunes nothing.
    final class FailingOnce: EventRetention {
        let calls = StateLock(0)

        func rawEventsSince() -> Int64? { nil }

        func prune(before cutoff: Int64, options: PruneOptions) throws(StoreError) -> PruneSummary {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if call == 1 { throw StoreError(.io, path: "test", "the disk is full") }
            return PruneSummary(cutoff: cutoff, rawEventsSince: cutoff, events: 0)
        }
    }

    @Test func aPruneThatFailedIsTriedAgainFiveMinutesLaterAndCounted() async throws {
        let clock = WatchedClock(milliseconds: Self.now)
        let readiness = StoreReadiness()
        let metrics = ServerMetrics()
        let (outcomes, outcome) = AsyncStream.makeStream(of: Bool.self)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let service = RetentionService(
            period: try #require(RetentionPeriod("90d")), retention: FailingOnce(), clock: clock, metrics: metrics,
            logger: logger, readiness: readiness, observer: { outcome.yield((try? $0.get()) != nil) })
        let running = Task { await service.run() }
        readiness.open()
        var results = outcomes.makeAsyncIterator()
        var waits = clock.waits.makeAsyncIterator()
        #expect(await results.next() == false)
        #expect(await waits.next() == Self.now + RetentionService.retryDelay)
        clock.clock.advance(by: RetentionService.retryDelay)
        #expect(await results.next() == true)
        #expect(metrics.exposition().contains("alstats_prunes_failed_total 1"))
        running.cancel()
        await running.value
    }

    @Test(arguments: [
        (#"{"retention": "90d"}"#, Int64(90) * 86_400_000), (#"{"retention": "52w"}"#, Int64(364) * 86_400_000),
        (#"{"write_keys": ["k"]}"#, nil),
    ])
    func theConfigFilesRetentionIsRead(_ json: String, _ milliseconds: Int64?) throws {
        let folder = TemporaryDatabase()
        let path = folder.file("serve.json")
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try ServerConfigFile.read(path).retention()?.milliseconds == milliseconds)
    }

    @Test(arguments: [#"{"retention": "90"}"#, #"{"retention": 90}"#, #"{"retention": "0d"}"#])
    func aRetentionThatIsNoWindowIsRefused(_ json: String) throws {
        let folder = TemporaryDatabase()
        let path = folder.file("serve.json")
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: EventServerError.self) { try ServerConfigFile.read(path).retention() }
    }

    private func metrics(_ client: some TestClientProtocol) async throws -> ByteBuffer {
        try await client.execute(uri: "/metrics", method: .get, headers: headers(key: ServerFixture.readKey)) {
            $0.body
        }
    }
}

#endif
