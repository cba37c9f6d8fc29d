#if Server

import EventServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The request log (docs/collector.md, "Health, metrics and logs"): one line per request, written off the request path
/// through a ``BufferedLogOutput``, and never a key.
@Suite struct RequestLogTests {
    /// A log file in the fixture's folder, and a logger writing text lines to it through a buffered output.
    static func logger(_ fixture: ServerFixture) -> (Logger, BufferedLogOutput, path: String, descriptor: Int32) {
        let path = fixture.folder.appendingPathComponent("serve.log").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let output = BufferedLogOutput(fileDescriptor: descriptor, interval: .milliseconds(5))
        var logger = Logger(label: "alstats.serve") { ServerLogHandler(label: $0, format: .text, output: output) }
        logger.logLevel = .info
        return (logger, output, path, descriptor)
    }

    @Test func everyRequestIsOneLineWithoutItsKeyOrQueryEvenWhenBuffered() async throws {
        let fixture = ServerFixture()
        let (logger, output, path, descriptor) = Self.logger(fixture)
        defer { close(descriptor) }
        let running = Task { try await output.run() }
        try await fixture.application(logger: logger).test(.router) { client in
            try await client.execute(
                uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey),
                body: ByteBuffer(string: LinkRouteTests.invite)
            ) { #expect($0.status == .ok) }
            for index in 0..<50 {
                try await client.execute(uri: "/l/invite?referral=secret-\(index)", method: .get) {
                    #expect($0.status == .ok)
                }
            }
            try await client.execute(uri: "/healthz", method: .get, headers: headers(key: "not-a-key-\(UUID())")) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/api/report", method: .get, headers: headers(key: "wrong-key-7")) {
                #expect($0.status == .unauthorized)
            }
        }
        running.cancel()
        try await running.value
        let log = try String(contentsOfFile: path, encoding: .utf8)
        let requests = log.split(separator: "\n").filter { $0.hasSuffix(" request") }
        #expect(requests.count == 53, "one line for each request")
        #expect(requests.filter { $0.contains("path=/l/invite") && $0.contains("status=200") }.count == 50)
        #expect(requests.last?.contains("path=/api/report") == true && requests.last?.contains("status=401") == true)
        for secret in [ServerFixture.adminKey, "not-a-key", "wrong-key-7", "secret-"] {
            #expect(!log.contains(secret), "\(secret) reached the log")
        }
    }

    @Test func linesAreWrittenAtOnceBeforeTheOutputRunsAndAfterItStops() async throws {
        let fixture = ServerFixture()
        let (logger, output, path, descriptor) = Self.logger(fixture)
        defer { close(descriptor) }
        logger.info("before")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasSuffix("before\n"))
        let running = Task { try await output.run() }
        running.cancel()
        try await running.value
        logger.info("after")
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasSuffix("after\n"))
    }

    /// The text layout (swift-log's `StreamLogHandler`'s) and the JSON one: metadata sorted by key, the event's own
    /// over the handler's, with or without handler metadata.
    @Test func linesLayTheirMetadataOutSortedWithTheEventsOwnOverTheHandlers() throws {
        let fixture = ServerFixture()
        let path = fixture.folder.appendingPathComponent("layout.log").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        defer { close(descriptor) }
        let output = BufferedLogOutput(fileDescriptor: descriptor)
        var plain = Logger(label: "alstats.serve") { ServerLogHandler(label: $0, format: .text, output: output) }
        plain.info("request", metadata: ["status": "200", "method": "GET", "path": "/v1/events"], source: "S")
        plain[metadataKey: "zone"] = "handler"
        plain[metadataKey: "app"] = "alstats"
        plain.info("merged", metadata: ["zone": "event", "method": "POST"], source: "S")
        var json = Logger(label: "alstats.serve") { ServerLogHandler(label: $0, format: .json, output: output) }
        json[metadataKey: "zone"] = "handler"
        json.warning("in json", metadata: ["zone": "event", "b": "2", "level": "not the level"])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let time = #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#
        #expect(
            lines[0].wholeMatch(
                of: try Regex(time + " info alstats.serve : method=GET path=/v1/events status=200 \\[S\\] request"))
                != nil, "\(lines[0])")
        #expect(
            lines[1].wholeMatch(
                of: try Regex(time + " info alstats.serve : app=alstats method=POST zone=event \\[S\\] merged")) != nil,
            "\(lines[1])")
        #expect(
            lines[2].wholeMatch(
                of: try Regex(
                    #"\{"ts":""# + time
                        + #"","level":"warning","label":"alstats.serve","message":"in json","b":"2","zone":"event"\}"#))
                != nil, "\(lines[2])")
    }
}

#endif
