#if Server

import EventUploadHTTPClient
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

/// The sink on the bus, through the fault proxy, into the real `alstats serve` on loopback (build it first:
/// `swift build`): whatever the network does, the collector ends with every posted event once, and every event
/// it lacks is a counted drop.
@Suite(.enabled(if: ServeCollector.built, "build alstats first with swift build"))
struct FaultScenarioTests {
    static let scenarios: [(String, [FaultProxy.Fault])] = [
        ("connections dropped before the request is sent", [.dropBeforeSending, .dropBeforeSending, .pass]),
        ("connections dropped after the collector committed", [.dropAfterSending, .pass, .dropAfterSending]),
        ("slow answers", [.delay(milliseconds: 300), .pass, .delay(milliseconds: 200)]),
        (
            "server errors with and without Retry-After",
            [
                .answer(status: 500), .answer(status: 503), .answer(status: 503, retryAfter: "1"),
                .answer(status: 429), .answer(status: 429, retryAfter: "1"), .answer(status: 502), .pass,
            ]
        ),
        ("a request too large for the collector", [.answer(status: 413), .pass, .answer(status: 413)]),
        ("a garbled success", [.answer(status: 200, body: "<html>ok</html>"), .pass]),
    ]

    @Test(arguments: 0..<scenarios.count)
    func everyPostedEventArrivesOnceWhateverTheNetworkDoes(scenario: Int) async throws {
        let (name, script) = FaultScenarioTests.scenarios[scenario]
        let outcome = try await runScenario(script: script, events: numberedEvents(1_234))
        #expect(outcome.stored == Set(numberedEvents(1_234).map(\.id.description)), "\(name)")
        #expect(outcome.status.dropped.isEmpty, "\(name)")
        #expect(outcome.status.pending == 0, "\(name)")
        #expect(outcome.applied.prefix(script.count) == script[...], "\(name): every fault was applied")
    }

    @Test func eventsTheCollectorRejectsAreCountedAndTheRestStored() async throws {
        let small = numberedEvents(600)
        let large = numberedEvents(3, start: 600, padding: 40_000)  // over the collector's 32 KiB per event
        let outcome = try await runScenario(script: [.dropAfterSending], events: small + large)
        #expect(outcome.stored == Set(small.map(\.id.description)))
        // The reason is the receipt's code, after `upload_rejected:`.
        #expect(outcome.status.dropped.count == 1)
        let (reason, count) = try #require(outcome.status.dropped.first)
        #expect(reason.rawValue == "upload_rejected:too_large")
        #expect(count == 3)
        #expect(outcome.completeness["rejected"]?[reason.rawValue] == 3)
    }

    @Test func aRefusedKeyPausesUntilResumedAndLosesNothing() async throws {
        let folder = TemporaryFolder()
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"), writeKey: "good")
        let proxy = try FaultProxy(upstream: collector.port, script: [])
        defer { proxy.stop() }
        let sink = try HTTPEventSink(
            .init(collector: proxy.url, writeKey: "bad", outboxPath: folder.file("outbox.sqlite"), policy: fastRetries),
            transport: AsyncHTTPClientUploadTransport())
        try post(numberedEvents(50), to: sink)
        await #expect(throws: UploadError.self) { try await sink.upload() }
        #expect(sink.status.pause?.kind == .refused(status: 401))
        #expect(sink.status.pending == 50)
        #expect(try collector.count() == 0)
        sink.resume(writeKey: "good")
        try await sink.upload()
        #expect(try collector.count() == 50)
    }

    struct Outcome {
        var stored: Set<String>
        var status: UploadStatus
        var applied: [FaultProxy.Fault]
        var completeness: [String: [String: Int]]
    }

    /// Retries after at most 50 ms (the schedule itself is tested on a virtual clock).
    var fastRetries: UploadPolicy {
        UploadPolicy(initialBackoff: .milliseconds(10), maximumBackoff: .milliseconds(50), giveUpAfter: .seconds(60))
    }

    /// Posts `events` on a bus with the sink attached, runs the background upload, and waits for `upload()`.
    func runScenario(script: [FaultProxy.Fault], events: [MeasurementEvent]) async throws -> Outcome {
        let folder = TemporaryFolder()
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        let proxy = try FaultProxy(upstream: collector.port, script: script)
        defer { proxy.stop() }
        let sink = try HTTPEventSink(
            .init(collector: proxy.url, writeKey: "wk", outboxPath: folder.file("outbox.sqlite"), policy: fastRetries),
            transport: AsyncHTTPClientUploadTransport())
        let bus = MeasurementEventBus()
        bus.attach(sink)
        let background = Task { await sink.run() }
        for event in events { _ = bus.publish(event) }
        await bus.flush()
        try await sink.upload()
        background.cancel()
        await background.value
        await bus.close()
        let ids = try collector.storedIDs()
        let stored = Set(ids)
        #expect(ids.count == stored.count, "each event stored once")
        return Outcome(
            stored: stored, status: sink.status, applied: proxy.applied,
            completeness: try completeness(folder.file("outbox.sqlite")))
    }
}

#endif
