#if Server

import EventServer
import Foundation
import Logging
import MeasurementEvents
import TestSupport
import Testing

/// `InProcessCollector`: the server `alstats demo` sends its events to, inside the caller's process.
struct InProcessCollectorTests {
    @Test func itListensOnAFreePortCommitsWhatItAcknowledgesAndStopsListeningWhenStopped() async throws {
        let fixture = ServerFixture()
        var configuration = EventServerConfiguration(
            databasePath: fixture.path, keys: AccessKeys(write: [ServerFixture.writeKey]))
        configuration.port = 0
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let collector = try await InProcessCollector.start(configuration: configuration, logger: logger)
        let port = try #require(collector.url.port)
        #expect(port != 0)
        #expect(collector.eventsURL.absoluteString == "http://127.0.0.1:\(port)/v1/events")

        let body = Array([eventLine(id: "in-process-1"), eventLine(id: "in-process-2")].joined(separator: "\n").utf8)
        let refused = HTTPAnswer.fetch(
            port: port, "POST", "/v1/events", key: "not-the-key", contentType: "application/x-ndjson", body: body)
        #expect(refused?.status == 401)
        let answer = HTTPAnswer.fetch(
            port: port, "POST", "/v1/events", key: ServerFixture.writeKey, contentType: "application/x-ndjson",
            body: body)
        #expect(answer?.status == 200, "\(answer?.body ?? "no answer")")
        #expect(answer.map { try? JSONValue.parse($0.body) }??["accepted"] == .int(2))

        try await collector.stop()
        #expect(try fixture.storedEvents().keys.sorted() == ["in-process-1", "in-process-2"])
        let after = HTTPAnswer.fetch(
            port: port, "POST", "/v1/events", key: ServerFixture.writeKey, contentType: "application/x-ndjson",
            body: body)
        #expect(after == nil, "nothing listens once it is stopped")
    }

    @Test func aStoreThatCannotBeOpenedIsAnErrorBeforeAnythingListens() async throws {
        var configuration = EventServerConfiguration(
            databasePath: "/nonexistent-folder-\(UUID().uuidString)/alstats.sqlite", keys: AccessKeys(write: ["k"]))
        configuration.port = 0
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        await #expect(throws: EventServerError.self) {
            _ = try await InProcessCollector.start(configuration: configuration, logger: logger)
        }
    }
}

#endif
