#if Server

import EventUpload
import EventUploadHTTPClient
import Foundation
import TestSupport
import Testing

/// The uploader's transport on Linux: one POST per batch as the collector expects it (gzip NDJSON, the write key as
/// the Basic user), the collector's answer handed back whole with its `Retry-After`, and no answer (a refused
/// connection, a collector that never answers) an error the uploader retries.
@Suite(.timeLimit(.minutes(5)))
struct AsyncHTTPClientUploadTransportTests {
    static let receipt = #"{"accepted":2,"duplicates":0,"rejected":[]}"#

    static func withCollector(_ body: (LoopbackHTTPServer) async throws -> Void) async throws {
        let server = try LoopbackHTTPServer(routes: [
            "/v1/events": .json(status: 200, headers: [:], body: receipt),
            "/busy": .json(status: 503, headers: ["Retry-After": "7"], body: #"{"error":"overloaded"}"#),
            "/slow": .hang,
        ])
        defer { server.stop() }
        try await body(server)
    }

    @Test func aBatchIsPostedAsGzipNDJSONWithTheWriteKeyAndItsReceiptComesBack() async throws {
        try await Self.withCollector { server in
            let body = Data([0x1F, 0x8B, 0x08, 0x00, 1, 2, 3])  // the bytes are the uploader's: sent as they are
            let answer = try await AsyncHTTPClientUploadTransport().send(
                body, to: server.url("/v1/events"), writeKey: "w1", timeout: .seconds(60))
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == Self.receipt)
            let request = try #require(server.requests.first)
            #expect(request.body == Array(body))
            #expect(request.headers["content-type"] == "application/x-ndjson")
            #expect(request.headers["content-encoding"] == "gzip")
            #expect(request.headers["authorization"] == "Basic " + Data("w1:".utf8).base64EncodedString())
        }
    }

    @Test func aRefusalIsAnAnswerWithItsRetryAfter() async throws {
        try await Self.withCollector { server in
            let answer = try await AsyncHTTPClientUploadTransport().send(
                Data([1]), to: server.url("/busy"), writeKey: "w1", timeout: .seconds(60))
            #expect(answer.status == 503)
            #expect(answer.retryAfter == "7")
        }
    }

    @Test func noAnswerWithinTheTimeoutIsAnError() async throws {
        try await Self.withCollector { server in
            await #expect(throws: AsyncHTTPClientUploadTransportError.self) {
                try await AsyncHTTPClientUploadTransport().send(
                    Data([1]), to: server.url("/slow"), writeKey: "w1", timeout: .milliseconds(300))
            }
        }
    }

    @Test func aRefusedConnectionIsAnError() async throws {
        let url = LoopbackHTTPServer.closedPortURL(path: "/v1/events")
        await #expect(throws: (any Error).self) {
            try await AsyncHTTPClientUploadTransport().send(Data([1]), to: url, writeKey: "w1", timeout: .seconds(60))
        }
    }
}

#endif
