#if Server

import EventStoreInterface
import Foundation
import MeasurementEvents
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The hosted link pages of the built `alstats serve`, read by the built `alstats resolve` over HTTP: it says it is
/// `alstats-resolve/VERSION`, and the hit counts as a tool's fetch, not a person's.
@Suite(.serialized) struct LinkServeProcessTests {
    /// The link EventServerTests' `LinkRouteTests` puts.
    static let invite = #"""
        {"slug": "invite", "title": "Couchin'", "pass_query": ["referral"],
         "ios": [{"url": "couchin://invite", "app_store_id": "123", "app_name": "Couchin'"}],
         "android": [{"url": "couchin://invite", "package": "com.example.couchin"}],
         "web": {"url": "https://couchin.example/invite"}}
        """#

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func ourResolverReadsTheServedPageAndNoClientAddressReachesTheDatabase() throws {
        let fixture = ServerFixture()
        let server = try ServeProcess(database: fixture.path, environment: ["ALSTATS_ADMIN_KEYS": "a1"])
        let put = server.request(
            "PUT", "/api/links/invite", key: "a1", contentType: "application/json", body: Self.invite)
        #expect(put?.status == 200, "\(put?.body ?? "no answer")")

        let resolve = Process()
        resolve.executableURL = URL(fileURLWithPath: try BuiltAlstats.require())
        resolve.arguments = [
            "resolve", "http://127.0.0.1:\(server.port)/l/invite?referral=42&ref=mail", "--format", "json",
        ]
        let output = Pipe()
        resolve.standardOutput = output
        resolve.standardError = FileHandle.nullDevice
        try resolve.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        resolve.waitUntilExit()
        #expect(resolve.terminationStatus == 0, "\(text)")
        let resolved = try JSONValue.parse(text)
        guard case .array(let targets) = resolved["targets"] else {
            Issue.record("no targets in \(text)")
            return
        }
        #expect(targets.first?["url"] == "couchin://invite?referral=42&ref=mail")
        #expect(targets.first?["appStoreId"] == "123")
        #expect(resolved["webURL"] == "https://couchin.example/invite?referral=42&ref=mail")

        #expect(server.stop(with: SIGTERM) == 0)
        let hits = try fixture.storedEvents().values.filter { $0.name == "alstats_link_hit" }
        #expect(hits.count == 1 && hits.first?.fields["query/referral"] == "42")
        #expect(hits.first?.fields["crawler"] == "1", "alstats resolve is a tool, not a person")
        #expect(hits.first?.fields["visitor"]?.count == 16)
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: fixture.path + suffix) ?? Data()
            #expect(bytes.range(of: Data("127.0.0.1".utf8)) == nil, "the client's address reached the file")
        }
    }
}

#endif
