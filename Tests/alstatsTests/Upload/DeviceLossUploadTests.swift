#if Server

import EventUploadHTTPClient
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

/// The device's losses travel to the real `alstats serve` (build it first: `swift build`) as loss records on
/// the events' own path, and its report counts each loss once, even when a batch carrying them is sent twice.
@Suite(.enabled(if: ServeCollector.built, "build alstats first with swift build"))
struct DeviceLossUploadTests {
    /// Retries after at most 50 ms.
    let policy = UploadPolicy(
        initialBackoff: .milliseconds(10), maximumBackoff: .milliseconds(50), giveUpAfter: .seconds(60))

    @Test func busDropsAndAFullOutboxReachTheCollectorsReportOnceWhenAnAnswerIsLost() async throws {
        let folder = TemporaryFolder()
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        // The collector commits the first request, whose answer never arrives: the batch is sent again.
        let proxy = try FaultProxy(upstream: collector.port, script: [.dropAfterSending])
        defer { proxy.stop() }
        let sink = try HTTPEventSink(
            .init(
                collector: proxy.url, writeKey: "wk", outboxPath: folder.file("outbox.sqlite"),
                maximumOutboxBytes: 20_000, policy: policy),
            transport: AsyncHTTPClientUploadTransport())
        let events = numberedEvents(400)
        for start in stride(from: 0, to: 400, by: 50) { try post(Array(events[start..<start + 50]), to: sink) }
        try sink.recordLosses([.bufferFull: 7, .sinkError: 2])  // as the bus reports its drops
        let full = try #require(sink.status.dropped[HTTPEventSink.outboxFull])
        let kept = sink.status.pending
        #expect(full > 0 && kept + full == 400)

        try await sink.upload()
        #expect(proxy.applied.first == .dropAfterSending)
        #expect(collector.duplicates > 0, "the first batch was sent twice")
        collector.stop()

        let completeness = try report(collector.databasePath)
        #expect(completeness.byReason["device:buffer_full"] == 7)
        #expect(completeness.byReason["device:sink_error"] == 2)
        #expect(completeness.byReason["device:outbox_full"] == full)
        #expect(completeness.dropped == 9 + full)
        // The records are not App Links events: the report counts exactly the events the device kept.
        #expect(completeness.navOut == kept)
    }

    @Test func lossesCountedWhileAnUploadRunsAreSentByTheNextBatchOnce() async throws {
        let folder = TemporaryFolder()
        let collector = try ServeCollector(databasePath: folder.file("collector.sqlite"))
        let sink = try HTTPEventSink(
            .init(collector: collector.url, writeKey: "wk", outboxPath: folder.file("outbox.sqlite"), policy: policy),
            transport: AsyncHTTPClientUploadTransport())
        try post(numberedEvents(1_200), to: sink)
        try sink.recordLosses([.bufferFull: 3])
        try await sink.upload()
        try sink.recordLosses([.bufferFull: 4])
        try post(numberedEvents(10, start: 1_200), to: sink)
        try await sink.upload()
        try await sink.upload()  // nothing left: nothing sent again
        collector.stop()
        let completeness = try report(collector.databasePath)
        #expect(completeness.byReason["device:buffer_full"] == 7)
        #expect(completeness.navOut == 1_210)
    }

    struct Counts {
        var dropped: Int
        var byReason: [String: Int]
        var navOut: Int
    }

    /// The completeness and the `al_nav_out` count of `alstats report --format json` on the collector's store.
    func report(_ path: String) throws -> Counts {
        let result = try BuiltAlstats.run(["report", "--database", path, "--format", "json"])
        #expect(result.status == 0, "\(result.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let completeness = try #require(json["completeness"] as? [String: Any])
        let daily = (json["daily"] as? [[String: Any]]) ?? []
        return Counts(
            dropped: completeness["dropped"] as? Int ?? -1,
            byReason: completeness["by_reason"] as? [String: Int] ?? [:],
            navOut: daily.reduce(0) { $0 + ($1["al_nav_out"] as? Int ?? 0) })
    }
}

#endif
