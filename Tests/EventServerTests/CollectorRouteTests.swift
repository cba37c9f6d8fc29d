#if Server

import CompressNIO
import EventServer
import EventStoreInterface
import EventStoreSQLite
import Foundation
import Hummingbird
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

@Suite struct CollectorRouteTests {
    @Test func receiptCountsAcceptedDuplicatesAndRejectedLinesWithTheirLineNumbers() async throws {
        let fixture = ServerFixture()
        let body = [
            eventLine(id: "a"), eventLine(id: "b"), eventLine(id: "a"), #"{"name":"x"}"#, "", "not json",
            eventLine(id: "c"),
        ].joined(separator: "\n")
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(), body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .ok)
                let receipt = json(response)
                #expect(receipt["accepted"] == .int(3))
                #expect(receipt["duplicates"] == .int(1))
                #expect(receipt["rejected"] == .int(2))
                guard case .array(let errors)? = receipt["errors"] else { throw FixtureError("no errors") }
                #expect(errors.map { $0["line"] } == [.int(4), .int(6)])
                #expect(errors.first?["reason"]?.stringValue?.contains("ts") == true)
            }
            // The same ids again: duplicates, nothing new.
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(), body: ByteBuffer(string: eventLine(id: "b"))
            ) { response in
                #expect(json(response)["duplicates"] == .int(1))
                #expect(json(response)["accepted"] == .int(0))
            }
        }
        #expect(try Set(fixture.storedEvents().keys) == ["a", "b", "c"])
        // Counted under the receipt's codes.
        #expect(
            try fixture.completeness()["rejected"] == ["invalid_event:missing_ts": 1, "invalid_event:bad_json": 1])
    }

    /// Over a real socket: a field whose name is a near miss of a catalogue name is stored as sent (among the
    /// extras), and the receipt names it, its line and the name probably meant; a field of the host's own is not
    /// named.
    @Test func aMisspeltFieldNameIsStoredAndNamedInTheReceiptsWarnings() async throws {
        let fixture = ServerFixture()
        let now = ServerFixture.now
        let body = [
            eventLine(id: "w1"),
            #"{"id":"w2","name":"al_nav_in","ts":\#(now),"fields":{"referer_app":"Facebook","campaign":"autumn"}}"#,
            #"{"id":"w3","name":"al_nav_in","ts":\#(now),"fields":{"referrerAppName":"Mail","RefererAppName":"M"}}"#,
            #"{"id":"w4","name":"al_nav_in","ts":\#(now),"fields":{"al_applink_data_extras_foo":"1","ref":"a"}}"#,
            // A fraction: decoded, not read in place.
            #"{"id":"w5","name":"al_nav_in","ts":\#(now),"fields":{"referer_app":"Mail","ratio":0.5,"Ref":"x"}}"#,
        ].joined(separator: "\n")
        try await fixture.application().test(.live) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(), body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .ok)
                let receipt = json(response)
                #expect(receipt["accepted"] == .int(5))
                guard case .array(let warnings)? = receipt["warnings"] else { throw FixtureError("no warnings") }
                let named: [[JSONValue?]] = [
                    [.int(2), .string("referer_app"), .string("refererAppName")],
                    [.int(3), .string("RefererAppName"), .string("refererAppName")],
                    [.int(3), .string("referrerAppName"), .string("refererAppName")],
                    [.int(5), .string("Ref"), .string("ref")],
                    [.int(5), .string("referer_app"), .string("refererAppName")],
                ]
                #expect(warnings.map { [$0["line"], $0["field"], $0["did_you_mean"]] } == named)
            }
        }
        let stored = try fixture.storedEvents()
        #expect(stored["w2"]?.fields == ["referer_app": "Facebook", "campaign": "autumn"], "stored as sent")
        #expect(stored["w3"]?.fields["referrerAppName"] == "Mail")
    }

    @Test func theWarningsOfOneAnswerStopAtTheirLimit() async throws {
        let fixture = ServerFixture()
        let now = ServerFixture.now
        let body = (0..<150).map { #"{"id":"m\#($0)","name":"x","ts":\#(now),"fields":{"Ref":"a"}}"# }
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(),
                body: ByteBuffer(string: body.joined(separator: "\n"))
            ) { response in
                let receipt = json(response)
                #expect(receipt["accepted"] == .int(150))
                guard case .array(let warnings)? = receipt["warnings"] else { throw FixtureError("no warnings") }
                #expect(warnings.count == 100)
                #expect(warnings.last?["line"] == .int(100))
            }
        }
    }

    @Test func aBodyOfOnlyRejectedLinesIsA400AndAnEmptyBodyA200() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(), body: ByteBuffer(string: "{}\n[1]")
            ) { response in
                #expect(response.status == .badRequest)
                #expect(json(response)["rejected"] == .int(2))
            }
            try await client.execute(uri: "/v1/events", method: .post, headers: headers(), body: ByteBuffer()) {
                #expect($0.status == .ok)
                #expect(json($0)["accepted"] == .int(0))
            }
        }
    }

    @Test func anEventOver32KiBIsRejectedAsTooLargeAndCounted() async throws {
        let fixture = ServerFixture()
        let big = #"{"id":"big","name":"x","ts":1,"fields":{"v":""# + String(repeating: "a", count: 33_000) + #""}}"#
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(),
                body: ByteBuffer(string: big + "\n" + eventLine(id: "small"))
            ) { response in
                #expect(response.status == .ok)
                let receipt = json(response)
                #expect(receipt["accepted"] == .int(1))
                guard case .array(let errors)? = receipt["errors"] else { throw FixtureError("no errors") }
                #expect(errors.first?["line"] == .int(1))
            }
        }
        #expect(try fixture.completeness()["rejected"]?["too_large"] == 1)
    }

    /// Each malformed line, and the code its error carries: the receipt's table in docs/http-api.md.
    static let malformedLines: [(line: String, code: String)] = [
        ("not json", "bad_json"),
        ("[1, 2]", "not_an_object"),
        (#"{"ts": 1763683200000}"#, "missing_name"),
        (#"{"name": "al_nav_in"}"#, "missing_ts"),
        (#"{"name": "al_nav_in", "ts": "yesterday"}"#, "bad_ts"),
        (#"{"name": "al_nav_in", "ts": true}"#, "bad_ts"),
        // Times outside the years 0001 to 9999: the first stopped the server (its 15-minute bucket overflowed).
        (#"{"name": "al_nav_in", "ts": -9223372036854775000}"#, "bad_ts"),
        (#"{"name": "al_nav_in", "ts": 9223372036854775807}"#, "bad_ts"),
        (#"{"name": "al_nav_in", "ts": "9999-12-31T23:59:59-01:00"}"#, "bad_ts"),
        (#"{"name": "al_nav_in", "ts": 1763683200000, "id": 7}"#, "bad_id"),
        (#"{"name": "al_nav_in", "ts": 1763683200000, "fields": [1]}"#, "bad_fields"),
        // PostgreSQL refused the whole group commit for one NUL, failing every client's request in it.
        (#"{"name": "al_nav_in", "ts": 1763683200000, "fields": {"ref": "a\u0000b"}}"#, "nul_character"),
        (
            #"{"name": "al_nav_in", "ts": 1763683200000, "fields": {"#
                + (0..<300).map { #""k\#($0)": "v""# }.joined(separator: ",") + "}}",
            "too_many_fields"
        ),
        (
            #"{"name": "x", "ts": 1763683200000, "fields": {"pad": ""# + String(repeating: "p", count: 33_000)
                + #""}}"#,
            "too_large"
        ),
    ]

    @Test func theReceiptCountsTheLinesItReadAndGivesEachErrorAStableCode() async throws {
        let fixture = ServerFixture()
        let lines =
            [eventLine(id: "ok-1")] + Self.malformedLines.map(\.line) + [
                "", eventLine(id: "ok-1"), eventLine(id: "ok-2"),
            ]
        try await fixture.application().test(.live) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(),
                body: ByteBuffer(string: lines.joined(separator: "\n"))
            ) { response in
                #expect(response.status == .ok)
                let receipt = json(response)
                // Every line but the blank one: 2 accepted, 1 duplicate, the malformed ones rejected.
                #expect(receipt["lines"] == .int(Int64(lines.count - 1)))
                #expect(receipt["accepted"] == .int(2))
                #expect(receipt["duplicates"] == .int(1))
                #expect(receipt["rejected"] == .int(Int64(Self.malformedLines.count)))
                guard case .array(let errors)? = receipt["errors"] else { throw FixtureError("no errors") }
                #expect(errors.map { $0["code"]?.stringValue } == Self.malformedLines.map(\.code))
                #expect(errors.map { $0["line"] } == (2...(Self.malformedLines.count + 1)).map { .int(Int64($0)) })
                #expect(errors.allSatisfy { !($0["reason"]?.stringValue ?? "").isEmpty })
            }
            try await client.execute(uri: "/metrics", method: .get, headers: headers(key: ServerFixture.readKey)) {
                let text = String(buffer: $0.body)
                #expect(text.contains(#"alstats_events_rejected_total{code="bad_ts"} 5"#), "\(text)")
                #expect(text.contains(#"alstats_events_rejected_total{code="too_large"} 1"#))
            }
        }
        #expect(try Set(fixture.storedEvents().keys) == ["ok-1", "ok-2"])
    }

    @Test func gzipBodiesAreInflatedAndBrokenOnesAre400() async throws {
        let fixture = ServerFixture()
        var plain = ByteBuffer(string: [eventLine(id: "g1"), eventLine(id: "g2")].joined(separator: "\n"))
        let compressed = try plain.compress(with: .gzip())
        let gzipHeaders = headers(encoding: "gzip")
        try await fixture.application().test(.router) { client in
            try await client.execute(uri: "/v1/events", method: .post, headers: gzipHeaders, body: compressed) {
                #expect($0.status == .ok)
                #expect(json($0)["accepted"] == .int(2))
            }
            try await client.execute(
                uri: "/v1/events", method: .post, headers: gzipHeaders, body: ByteBuffer(string: "not gzip at all")
            ) { #expect($0.status == .badRequest) }
            // A stream cut in the middle.
            try await client.execute(
                uri: "/v1/events", method: .post, headers: gzipHeaders,
                body: compressed.getSlice(at: compressed.readerIndex, length: compressed.readableBytes / 2)
            ) { #expect($0.status == .badRequest) }
        }
    }

    @Test func bodiesOverTheLimitsAre413() async throws {
        let fixture = ServerFixture()
        let oversized = ByteBuffer(repeating: UInt8(ascii: " "), count: 512 * 1024 + 1)
        // 5 MiB of blanks compress to a few KiB: over the limit once inflated.
        var blanks = ByteBuffer(repeating: UInt8(ascii: " "), count: 5 * 1024 * 1024)
        let bomb = try blanks.compress(with: .gzip())
        let gzipHeaders = headers(encoding: "gzip")
        try await fixture.application().test(.router) { client in
            try await client.execute(uri: "/v1/events", method: .post, headers: headers(), body: oversized) {
                #expect($0.status == .contentTooLarge)
            }
            #expect(bomb.readableBytes < 512 * 1024)
            try await client.execute(uri: "/v1/events", method: .post, headers: gzipHeaders, body: bomb) {
                #expect($0.status == .contentTooLarge)
            }
        }
    }

    @Test(arguments: ["application/x-www-form-urlencoded", "text/csv", "multipart/form-data; boundary=x"])
    func anotherContentTypeIs415(contentType: String) async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(contentType: contentType),
                body: ByteBuffer(string: eventLine(id: "t"))
            ) { #expect($0.status == .unsupportedMediaType) }
        }
        #expect(try fixture.storedEvents().isEmpty)
    }

    @Test func secretsAreRedactedBeforeStorage() async throws {
        let fixture = ServerFixture()
        let event =
            #"{"id":"s","name":"al_nav_in","ts":1,"fields":{"inputURL":"fb123://authorize#access_token=SECRETTOKEN42"}}"#
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(), body: ByteBuffer(string: event)
            ) { #expect($0.status == .ok) }
        }
        let stored = try #require(try fixture.storedEvents()["s"])
        #expect(stored.fields["inputURL"]?.contains("SECRETTOKEN42") == false)
        let bytes = FileManager.default.contents(atPath: fixture.path) ?? Data()
        let wal = FileManager.default.contents(atPath: fixture.path + "-wal") ?? Data()
        #expect(bytes.range(of: Data("SECRETTOKEN42".utf8)) == nil)
        #expect(wal.range(of: Data("SECRETTOKEN42".utf8)) == nil)
    }

    @Test func aFullQueueAnswers503WithRetryAfter() async throws {
        let fixture = ServerFixture()
        let store = try SQLiteEventStore(path: fixture.path)
        let writer = GroupCommitWriter(store: store, maximumQueuedEvents: 2)
        // Not running: the first submission waits in the queue, the next one does not fit.
        let first = Task { try await writer.submit(sampleLines(2), losses: [:]) }
        try await waitUntil { writer.queuedEventCount == 2 }
        await #expect(throws: EventSubmitError.overloaded) {
            try await writer.submit(sampleLines(1), losses: [:])
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await writer.run() }
            let stored = try await first.value
            #expect(stored == 2)
            writer.close()
            try await group.waitForAll()
        }
        await #expect(throws: EventSubmitError.closed) {
            try await writer.submit(sampleLines(1), losses: [:])
        }
    }

    @Test func overloadAnswerCarriesRetryAfter() {
        let error = EventSubmitError.overloaded.answer
        #expect(error.status == .serviceUnavailable)
        #expect(error.headers[.retryAfter] == "1")
    }
}

/// `count` distinct events.
func sampleLines(_ count: Int, prefix: String = UUID().uuidString) -> [MeasurementEvent] {
    (0..<count).map { MeasurementEvent(id: EventID("\(prefix)-\($0)"), name: "x", fields: [:], timestamp: 1) }
}

/// Polls `condition` (a state change, not a time) until it holds.
///
/// The bound is only there so that a hang fails instead of stalling the run, so it is generous: the tests of the
/// built binary block a cooperative-pool thread each while the binary runs (two minutes under CI's load on two
/// cores), and a task this test started may not run before they end.
/// - Throws: ``StateNotReached`` when it does not hold within `limit`: the test fails instead of hanging.
func waitUntil(
    within limit: Duration = .seconds(300), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @Sendable () -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw StateNotReached(limit: limit, at: sourceLocation) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// The state a test waited for was not reached in time.
struct StateNotReached: Error, CustomStringConvertible {
    var limit: Duration
    var at: SourceLocation

    var description: String { "the state awaited at \(at) was not reached within \(limit)" }
}

#endif
