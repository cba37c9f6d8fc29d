#if Server

import EventServer
import EventStoreInterface
import Foundation
import Hummingbird
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

@Suite struct SegmentRouteTests {
    /// Segment's libraries send the write key as the Basic user name.
    static var segmentHeaders: HTTPFields {
        var fields = HTTPFields()
        fields[.authorization] = "Basic " + Data("\(ServerFixture.writeKey):".utf8).base64EncodedString()
        fields[.contentType] = "application/json"
        return fields
    }

    /// The answer of `fixture`'s server, over a real socket, to `body` sent to `/v1/batch`; the status must be 200.
    static func postBatch(_ body: String, to fixture: ServerFixture) async throws -> JSONObject {
        try await fixture.application().test(.live) { client in
            try await client.execute(
                uri: "/v1/batch", method: .post, headers: segmentHeaders, body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .ok)
                return json(response)
            }
        }
    }

    @Test func aBatchIsStoredWithTheClientsClockCorrectedAndIdentifyIgnored() async throws {
        let fixture = ServerFixture()
        // The client's clock is 90 s behind: it says it sent at now - 90 s.
        let body = """
            {"batch": [
              {"type": "track", "event": "signup", "messageId": "m1", "timestamp": "2025-11-20T23:58:00.000Z",
               "userId": "u1", "properties": {"plan": "pro", "extras": {"seats": 3}},
               "context": {"app": {"name": "Reader"}, "ip": "10.0.0.1"}},
              {"type": "screen", "name": "Home", "messageId": "m2", "timestamp": "2025-11-20T23:58:30Z",
               "properties": {"ref": "feed"}},
              {"type": "page", "name": "Pricing", "messageId": "m3"},
              {"type": "identify", "userId": "u1", "traits": {"email": "a@b.c"}, "messageId": "m4"},
              {"type": "track", "messageId": "m5"}
            ], "sentAt": "2025-11-20T23:58:30.000Z"}
            """
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/batch", method: .post, headers: Self.segmentHeaders, body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .ok)
                let answer = json(response)
                #expect(answer["success"] == .bool(true))
                #expect(answer["accepted"] == .int(3))
                #expect(answer["rejected"] == .int(1))
            }
        }
        let events = try fixture.storedEvents()
        #expect(events.count == 3)
        let track = try #require(events["m1"])
        #expect(track.name == "signup")
        #expect(track.fields == ["plan": "pro", "extras/seats": "3", "app": "Reader"])
        // 23:58:00 on the client's clock, sent at 23:58:30 and received at 00:00:00: 90 s later.
        #expect(track.timestamp == ServerFixture.now - 30_000)
        let screen = try #require(events["m2"])
        #expect(screen.name == "screen")
        #expect(screen.fields == ["name": "Home", "ref": "feed"])
        #expect(screen.timestamp == ServerFixture.now)
        let page = try #require(events["m3"])
        #expect(page.name == "page")
        #expect(page.fields["name"] == "Pricing")
        #expect(page.timestamp == ServerFixture.now)  // no timestamp: receivedAt
        #expect(events["m4"] == nil)
    }

    @Test(arguments: ["track", "screen", "page"])
    func aSingleCallIsStoredUnderItsType(type: String) async throws {
        let fixture = ServerFixture()
        let body = #"{"event": "opened", "name": "Feed", "messageId": "one", "timestamp": "2025-11-20T00:00:00Z"}"#
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/\(type)", method: .post, headers: Self.segmentHeaders, body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .ok)
                #expect(json(response)["success"] == .bool(true))
            }
        }
        let event = try #require(try fixture.storedEvents()["one"])
        #expect(event.name == (type == "track" ? "opened" : type))
        #expect(event.timestamp == ServerFixture.now - 86_400_000)
    }

    @Test func identifyGroupAndAliasAreAcknowledgedAndNotStored() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            for type in ["identify", "group", "alias"] {
                try await client.execute(
                    uri: "/v1/\(type)", method: .post, headers: Self.segmentHeaders,
                    body: ByteBuffer(string: #"{"userId": "u1", "traits": {"email": "x@y.z"}}"#)
                ) { response in
                    #expect(response.status == .ok)
                    #expect(json(response)["success"] == .bool(true))
                    // The call was read and ignored: the receipt accounts for it.
                    #expect(json(response)["lines"] == .int(1))
                    #expect(json(response)["ignored"] == .int(1))
                }
            }
            try await client.execute(uri: "/metrics", method: .get, headers: headers(key: ServerFixture.readKey)) {
                #expect(String(buffer: $0.body).contains(#"alstats_segment_calls_ignored_total{type="identify"} 1"#))
            }
        }
        #expect(try fixture.storedEvents().isEmpty)
    }

    /// Times past the years 0001 to 9999, given or made by the clock's correction, are rejected as
    /// `bad_timestamp`, each call on its own (`Int64.max` against a `sentAt` of 0 overflowed the correction and
    /// stopped the server); the calls around them are stored, over a real socket.
    @Test func timesOutsideTheYears0001To9999AreRejectedAndTheServerGoesOn() async throws {
        let fixture = ServerFixture()
        let body = """
            {"batch": [
              {"type": "track", "event": "a", "messageId": "in1", "timestamp": "2025-11-20T23:58:00.000Z"},
              {"type": "track", "event": "b", "messageId": "x1", "timestamp": 9223372036854775807, "sentAt": 0},
              {"type": "track", "event": "b", "messageId": "x2", "timestamp": -9223372036854775000},
              {"type": "track", "event": "b", "messageId": "x3", "timestamp": 253402300799999,
               "sentAt": "2025-11-19T00:00:00Z"},
              {"type": "track", "event": "b", "messageId": "x4", "timestamp": "2025-11-20T23:58:00Z",
               "sentAt": -9223372036854775000},
              {"type": "track", "event": "a", "messageId": "in2", "timestamp": 253402300799999,
               "sentAt": 253402300799999}
            ]}
            """
        let answer = try await Self.postBatch(body, to: fixture)
        #expect(answer["accepted"] == .int(2))
        #expect(answer["rejected"] == .int(4))
        guard case .array(let errors)? = answer["errors"] else { throw FixtureError("no errors") }
        #expect(errors.map { $0["code"]?.stringValue } == Array(repeating: "bad_timestamp", count: 4))
        let events = try fixture.storedEvents()
        #expect(Set(events.keys) == ["in1", "in2"])
        #expect(events["in2"]?.timestamp == ServerFixture.now)
    }

    /// A call holding a NUL (`\u0000`) in its event name, messageId, a property's name or value, or the app's name
    /// is rejected as `nul_character` on its own; the calls around it are stored.
    @Test func callsHoldingANulCharacterAreRejectedOneByOne() async throws {
        let fixture = ServerFixture()
        let body = #"""
            {"batch": [
              {"type": "track", "event": "a", "messageId": "in1"},
              {"type": "track", "event": "b\u0000", "messageId": "x1"},
              {"type": "track", "event": "b", "messageId": "x2\u0000"},
              {"type": "track", "event": "b", "messageId": "x3", "properties": {"k\u0000": "v"}},
              {"type": "track", "event": "b", "messageId": "x4", "properties": {"k": {"n": "\u0000"}}},
              {"type": "screen", "name": "s\u0000", "messageId": "x5"},
              {"type": "track", "event": "b", "messageId": "x6", "context": {"app": {"name": "\u0000"}}},
              {"type": "track", "event": "a", "messageId": "in2", "context": {"ip": "\u0000"}}
            ]}
            """#
        let answer = try await Self.postBatch(body, to: fixture)
        #expect(answer["accepted"] == .int(2))
        guard case .array(let errors)? = answer["errors"] else { throw FixtureError("no errors") }
        #expect(errors.map { $0["code"]?.stringValue } == Array(repeating: "nul_character", count: 6))
        #expect(errors.map { $0["line"] } == (2...7).map { .int(Int64($0)) })
        #expect(try Set(fixture.storedEvents().keys) == ["in1", "in2"])
    }

    @Test func invalidJSONIs400() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            for path in ["/v1/batch", "/v1/track"] {
                try await client.execute(
                    uri: path, method: .post, headers: Self.segmentHeaders, body: ByteBuffer(string: "{\"batch\": [")
                ) { #expect($0.status == .badRequest) }
            }
        }
    }
}

#endif
