#if Server

import Foundation
import Hummingbird
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

@testable import EventServer

/// The config's `limits` and the write keys' token buckets, on a manual clock (no test sleeps): a key past its
/// burst is answered 429 with `Retry-After` and a receipt of `rate_limited` lines, nothing stored; its bucket refills
/// at its rate; other keys keep their own; `/metrics` shows the limits and refusals by the key's fingerprint only.
@Suite struct RateLimitTests {
    static func limits(_ json: String) throws -> ServerLimits {
        try ServerLimits(json: JSONValue.parse(json), path: "serve.json")
    }

    @Test func theConfigsLimitsHaveTheSpecsDefaultsAndReadDurations() throws {
        let defaults = ServerLimits()
        #expect(defaults.headerTimeout == .seconds(10))
        #expect(defaults.bodyTimeout == .seconds(30))
        #expect(defaults.idleTimeout == .seconds(60))
        #expect(defaults.maxConnections == 4096)
        #expect(defaults.rate == KeyRate(eventsPerSecond: 10_000, burst: 50_000))
        #expect(try ServerLimits(json: nil, path: "x") == defaults)

        let read = try Self.limits(
            #"{"header_timeout": "90s", "body_timeout": "15m", "idle_timeout": "500ms", "max_connections": 10,"#
                + #" "events_per_second_per_key": 200, "per_key": {"k1": {"burst": 5}, "k2": {"events_per_second": 7},"#
                + #" "k3": {"events_per_second": "unlimited"}}}"#)
        #expect(read.headerTimeout == .seconds(90))
        #expect(read.bodyTimeout == .seconds(900))
        #expect(read.idleTimeout == .milliseconds(500))
        #expect(read.maxConnections == 10)
        // A rate without a burst gets five seconds of it; an entry's missing half is the default's.
        #expect(read.rate == KeyRate(eventsPerSecond: 200, burst: 1_000))
        #expect(read.perKey["k1"] == KeyRate(eventsPerSecond: 200, burst: 5))
        #expect(read.perKey["k2"] == KeyRate(eventsPerSecond: 7, burst: 35))
        #expect(read.perKey["k3"]?.eventsPerSecond == nil)
        #expect(
            try Self.limits(#"{"header_timeout": 2, "body_timeout": "1.5s", "idle_timeout": "1h"}"#).bodyTimeout
                == .milliseconds(1_500))

        for bad in [
            #"{"header_timeout": "10"}"#, #"{"header_timeout": "10x"}"#, #"{"body_timeout": "-1s"}"#,
            #"{"idle_timeout": "0s"}"#, #"{"max_connections": 0}"#, #"{"max_connections": "many"}"#,
            #"{"events_per_second_per_key": 0}"#, #"{"burst_per_key": "lots"}"#, #"{"per_key": []}"#,
            #"{"per_key": {"k": {"rate": 1}}}"#, #"{"maximum_connections": 1}"#, #"[]"#,
        ] {
            #expect(throws: EventServerError.self, "\(bad)") { try Self.limits(bad) }
        }
    }

    @Test func aKeysBucketRefusesPastItsBurstRefillsAtItsRateAndLetsALargeRequestInWhenFull() throws {
        let clock = ManualEventClock(milliseconds: 0)
        let keys = AccessKeys(write: ["w1"])
        var limits = ServerLimits()
        limits.rate = KeyRate(eventsPerSecond: 100, burst: 200)
        let limiter = try KeyRateLimiter(keys: keys, limits: limits, clock: clock, metrics: ServerMetrics())
        let key = keys.identify("Bearer w1", for: .write).key
        #expect(key == 0)
        #expect(limiter.take(events: 150, key: key) == .allowed)
        #expect(limiter.take(events: 100, key: key) == .refused(retryAfter: 1, rate: limits.rate))
        clock.advance(by: 500)  // 50 + 50 tokens
        #expect(limiter.take(events: 100, key: key) == .allowed)
        #expect(limiter.take(events: 1, key: key) == .refused(retryAfter: 1, rate: limits.rate))
        #expect(limiter.take(events: 0, key: key) == .allowed)
        // More than the burst: let in once the bucket is full, and paid back at the rate before the next.
        clock.advance(by: 60_000)
        #expect(limiter.take(events: 500, key: key) == .allowed)
        #expect(limiter.take(events: 1, key: key) == .refused(retryAfter: 4, rate: limits.rate))
        clock.advance(by: 3_000)
        #expect(limiter.take(events: 1, key: key) == .refused(retryAfter: 1, rate: limits.rate))
        clock.advance(by: 1_000)
        #expect(limiter.take(events: 1, key: key) == .allowed)
        // A clock that steps back gives nothing and takes nothing.
        clock.advance(by: -10_000)
        #expect(limiter.take(events: 99, key: key) == .allowed)
        // No key (--no-auth) and unknown positions are not limited.
        #expect(limiter.take(events: 1_000_000, key: nil) == .allowed)
    }

    @Test(arguments: [nil, false] as [Bool?])
    func theRefusalsReceiptIsWrittenAsTheReceiptsJSON(success: Bool?) {
        let reason = #"over "its" rate\: é"#
        let receipt = Receipt(
            lines: 3, accepted: 0, duplicates: 0,
            rejections: [2, 3, 5].map {
                Intake.Rejection(
                    line: $0, code: "rate_limited", reason: reason, dropReason: .invalidEvent(code: "rate_limited"))
            })
        let text = Receipt.allRejectedText(
            lines: 3, numbers: [2, 3, 5], code: "rate_limited", reason: reason, success: success)
        #expect(text == receipt.json(success: success).jsonText())
    }

    @Test func aKeyIsGivenItsOwnRateByItselfOrByItsFingerprint() throws {
        #expect(KeyRateLimiter.fingerprint(of: Array("w1".utf8)) == "60c5590f72ee")  // printf %s w1 | sha256sum
        let clock = ManualEventClock(milliseconds: 0)
        let keys = AccessKeys(write: ["slow-key", "free-key", "plain-key"], read: ["r1"])
        let limits = try Self.limits(
            #"{"events_per_second_per_key": 10, "burst_per_key": 10, "per_key": {"slow-key": {"events_per_second": 1,"#
                + #" "burst": 1}, "\#(KeyRateLimiter.fingerprint(of: Array("free-key".utf8)))": {"#
                + #""events_per_second": "unlimited"}}}"#)
        let limiter = try KeyRateLimiter(keys: keys, limits: limits, clock: clock, metrics: ServerMetrics())
        func take(_ events: Int, _ key: String) -> KeyRateLimiter.Outcome {
            limiter.take(events: events, key: keys.identify("Bearer \(key)", for: .write).key)
        }
        #expect(take(1, "slow-key") == .allowed)
        #expect(take(1, "slow-key") != .allowed)
        #expect(take(1_000_000, "free-key") == .allowed)
        #expect(take(10, "plain-key") == .allowed)
        #expect(take(1, "plain-key") != .allowed)
        // A read key is not a write key: no bucket, and no access either.
        #expect(keys.identify("Bearer r1", for: .write).key == nil)

        for entry in ["r1", "not-a-key", "0123456789ab"] {
            let wrong = try Self.limits(#"{"per_key": {"\#(entry)": {"burst": 1}}}"#)
            do {
                _ = try KeyRateLimiter(keys: keys, limits: wrong, clock: clock, metrics: ServerMetrics())
                Issue.record("per_key \(entry) was taken")
            } catch {
                #expect(error.kind == .configuration)
                #expect(entry.count == 12 || !error.message.contains(entry), "the message shows the entry: \(error)")
            }
        }
    }

    @Test func aKeyPastItsRateIsAnswered429WithARateLimitedReceiptAndNothingIsStored() async throws {
        let fixture = ServerFixture()
        let app = try fixture.application {
            $0.keys = AccessKeys(
                write: [ServerFixture.writeKey, "other-write-key"], read: [ServerFixture.readKey])
            $0.limits.rate = KeyRate(eventsPerSecond: 10, burst: 20)
            $0.limits.refusalPause = .milliseconds(100)
        }
        try await app.test(.live) { client in
            func post(_ lines: [String], key: String = ServerFixture.writeKey) async throws -> TestResponse {
                try await client.execute(
                    uri: "/v1/events", method: .post, headers: headers(key: key),
                    body: ByteBuffer(string: lines.joined(separator: "\n")))
            }
            #expect(try await post((0..<20).map { eventLine(id: "in-\($0)") }).status == .ok)
            // Blank lines are numbered and not counted, as in every receipt.
            let asked = ContinuousClock.now
            let refused = try await post([
                eventLine(id: "late-0"), "", eventLine(id: "late-1"), "  ", eventLine(id: "late-2"),
            ])
            #expect(refused.status == .tooManyRequests)
            #expect(ContinuousClock.now - asked >= .milliseconds(100), "a refusal is answered after its pause")
            #expect(refused.headers[.retryAfter] == "1")
            let receipt = json(refused)
            #expect(receipt["lines"] == .int(3))
            #expect(receipt["accepted"] == .int(0))
            #expect(receipt["duplicates"] == .int(0))
            #expect(receipt["rejected"] == .int(3))
            guard case .array(let errors)? = receipt["errors"] else { throw FixtureError("no errors") }
            #expect(errors.map { $0["line"] } == [.int(1), .int(3), .int(5)])
            #expect(errors.allSatisfy { $0["code"] == "rate_limited" })
            #expect(receipt["code"] == "rate_limited")
            #expect(receipt["message"]?.stringValue?.contains("10 events a second (burst 20)") == true)
            // Another key has its own bucket.
            #expect(try await post([eventLine(id: "other-0")], key: "other-write-key").status == .ok)
            // Segment's routes: the same, with success false.
            let batch = #"{"batch": [{"type": "track", "event": "e", "messageId": "seg-late"}]}"#
            let segment = try await client.execute(
                uri: "/v1/batch", method: .post, headers: headers(contentType: "application/json"),
                body: ByteBuffer(string: batch))
            #expect(segment.status == .tooManyRequests)
            #expect(json(segment)["success"] == .bool(false))
            #expect(json(segment)["rejected"] == .int(1))
            // Half a second refills 5 events.
            fixture.clock.advance(by: 500)
            #expect(try await post((0..<5).map { eventLine(id: "refilled-\($0)") }).status == .ok)
            #expect(try await post([eventLine(id: "late-3")]).status == .tooManyRequests)

            let metrics = try await client.execute(
                uri: "/metrics", method: .get, headers: headers(key: ServerFixture.readKey, contentType: nil))
            let text = String(buffer: metrics.body)
            let fingerprint = KeyRateLimiter.fingerprint(of: Array(ServerFixture.writeKey.utf8))
            #expect(text.contains(#"alstats_rate_limited_requests_total{key="\#(fingerprint)"} 3"#), "\(text)")
            #expect(text.contains(#"alstats_rate_limited_events_total{key="\#(fingerprint)"} 5"#))
            #expect(text.contains(#"alstats_rate_limit_events_per_second{key="\#(fingerprint)"} 10"#))
            #expect(text.contains(#"alstats_rate_limit_burst{key="\#(fingerprint)"} 20"#))
            #expect(text.contains(#"alstats_events_rejected_total{code="rate_limited"} 5"#))
            #expect(text.contains(#"alstats_connections_max 4096"#))
            #expect(!text.contains(ServerFixture.writeKey) && !text.contains("other-write-key"))
        }
        let stored = try fixture.storedEvents()
        #expect(stored.count == 26)
        #expect(stored.keys.allSatisfy { !$0.hasPrefix("late") && $0 != "seg-late" })
        // Refused lines are not the data's losses: the completeness counts none.
        #expect(try fixture.completeness()["rejected"]?.values.reduce(0, +) ?? 0 == 0)
    }
}

#endif
