#if Server

import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import EventServer
@testable import EventStoreInterface

@Suite struct AuthRouteTests {
    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    @Test(arguments: [
        "Bearer \(ServerFixture.writeKey)",
        basic(ServerFixture.writeKey, ""),  // Segment's libraries: the key as user name
        basic("anyone", ServerFixture.writeKey),  // a browser prompt: the key as password
    ])
    func eachKeyFormIsAccepted(authorization: String) async throws {
        let fixture = ServerFixture()
        var fields = headers(key: nil)
        fields[.authorization] = authorization
        let request = fields
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: request, body: ByteBuffer(string: eventLine(id: "k"))
            ) { #expect($0.status == .ok) }
        }
        #expect(try fixture.storedEvents().count == 1)
    }

    @Test(arguments: [nil, "Bearer wrong", "Bearer ", basic("", ""), "Digest abc", "Basic !!!"] as [String?])
    func noOrAnUnknownKeyIs401WithABasicChallenge(authorization: String?) async throws {
        let fixture = ServerFixture()
        var fields = headers(key: nil)
        if let authorization { fields[.authorization] = authorization }
        let request = fields
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: request, body: ByteBuffer(string: eventLine(id: "k"))
            ) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Basic realm="alstats""#)
            }
            try await client.execute(uri: "/api/report", method: .get, headers: request) {
                #expect($0.status == .unauthorized)
            }
        }
        #expect(try fixture.storedEvents().isEmpty)
    }

    /// The scheme in any case, spaces and tabs around the key; nothing else passes for a key.
    @Test func theHeaderIsReadAsHTTPWritesIt() {
        let keys = AccessKeys(write: ["k1"])
        for header in [
            "Bearer k1", "bearer k1", "BEARER   k1 \t", "  Bearer k1", "Basic " + Self.base64("k1:"),
            "bAsIc " + Self.base64("user:k1"), "Basic  " + Self.base64("k1"),
        ] {
            #expect(keys.check(header, for: .write) == .allowed, "\(header)")
        }
        for header in [
            "Bearer", "Bearer\tk1", "Bearerk1", "Token k1", "Bearer  \t", "Basic", "Basic " + Self.base64(":"),
            "Beärer k1", "Basic k1",
        ] {
            #expect(keys.check(header, for: .write) == .unauthenticated, "\(header)")
        }
        #expect(keys.check("Bearer k1x", for: .write) == .unknownKey)
    }

    /// Over a real socket: the 401 says whether no key was sent or the key sent is not one of this server's, and
    /// which role's key is needed, without the key sent in it; the status and challenge stay those of docs/http-api.md.
    @Test func a401SaysWhetherAKeyWasSentAndWhichKeyIsNeeded() async throws {
        let fixture = ServerFixture()
        let unknown = "unknown-key-0123456789abcdef"
        try await fixture.application().test(.live) { client in
            let body = ByteBuffer(string: eventLine(id: "k"))
            try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: nil), body: body) {
                let text = Self.unauthorizedMessage($0)
                #expect(text.hasPrefix("no key was sent: a write key is needed"), "\(text)")
                #expect(text.contains("Authorization: Bearer KEY"), "\(text)")
            }
            try await client.execute(uri: "/v1/events", method: .post, headers: headers(key: unknown), body: body) {
                let text = Self.unauthorizedMessage($0)
                #expect(text.contains("the key sent, 'unkn…' (28 characters), is not a write key of this collector"))
                #expect(!text.contains("no key was sent"), "\(text)")
                #expect(!text.contains("unknown-"), "the key is not echoed: \(text)")
            }
            try await client.execute(uri: "/api/report", method: .get, headers: headers(key: unknown)) {
                let text = Self.unauthorizedMessage($0)
                #expect(text.contains("is not a read or admin key of this server"), "\(text)")
            }
            var digest = headers(key: nil)
            digest[.authorization] = "Digest abc"
            try await client.execute(uri: "/api/links", method: .get, headers: digest) {
                let text = Self.unauthorizedMessage($0)
                #expect(text.hasPrefix("the Authorization header holds no key that can be read: an admin key"))
            }
        }
        #expect(try fixture.storedEvents().isEmpty)
    }

    /// The message of a 401 with the Basic challenge; an issue when the response is not one.
    static func unauthorizedMessage(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation)
        -> String
    {
        #expect(response.status == .unauthorized, sourceLocation: sourceLocation)
        #expect(response.headers[.wwwAuthenticate] == #"Basic realm="alstats""#, sourceLocation: sourceLocation)
        return json(response, sourceLocation: sourceLocation)["error"]?.stringValue ?? ""
    }

    @Test(arguments: [
        ("Bearer abcdefghijkl", "'abc…' (12 characters)"), ("Bearer abc", "(3 characters)"),
        ("Bearer a", "(1 character)"), ("Bearer " + String(repeating: "x", count: 40), "'xxxx…' (40 characters)"),
        ("Basic " + base64("user:\u{1}password"), "(9 characters)"), ("Digest abc", "no key"),
    ])
    func aKeyIsNamedByAQuarterOfItAtMostFourCharactersAndItsLength(header: String, named: String) {
        #expect(AccessKeys.maskedKey(in: header) == named)
    }

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test func aKeyOfAnotherRoleIs403() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(key: ServerFixture.readKey),
                body: ByteBuffer(string: eventLine(id: "k"))
            ) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/api/report", method: .get, headers: headers(key: ServerFixture.writeKey)) {
                #expect($0.status == .forbidden)
            }
            for key in [ServerFixture.readKey, ServerFixture.adminKey] {
                try await client.execute(uri: "/api/report", method: .get, headers: headers(key: key)) {
                    #expect($0.status == .ok)
                }
                try await client.execute(uri: "/metrics", method: .get, headers: headers(key: key)) {
                    #expect($0.status == .ok)
                }
            }
            try await client.execute(uri: "/healthz", method: .get) {
                #expect($0.status == .ok)
                #expect(String(buffer: $0.body) == "ok\n")
            }
        }
    }

    @Test func keysComeFromTheConfigFileAndTheEnvironment() throws {
        let fixture = ServerFixture()
        let config = fixture.folder.appendingPathComponent("serve.json").path
        try Data(#"{"write_keys": ["w1"], "read_keys": ["r1"], "links": {}}"#.utf8).write(
            to: URL(fileURLWithPath: config))
        let keys = try AccessKeys.load(
            configFile: config, environment: ["ALSTATS_WRITE_KEYS": "w2, w3", "ALSTATS_ADMIN_KEYS": "a1"])
        #expect(keys.count(of: .write) == 3)
        #expect(keys.count(of: .read) == 1)
        #expect(keys.check("Bearer w3", for: .write) == .allowed)
        #expect(keys.check("Bearer a1", for: .read) == .allowed)
        #expect(keys.check("Bearer a1", for: .write) == .forbidden)
        #expect(!keys.description.contains("w1"))
        try Data(#"{"write_keys": "w1"}"#.utf8).write(to: URL(fileURLWithPath: config))
        #expect(throws: EventServerError.self) { try AccessKeys.load(configFile: config, environment: [:]) }
    }
}

#endif
