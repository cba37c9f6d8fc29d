#if Server

import Foundation
import MeasurementEvents
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `alstats check` as a developer runs it: against a local site (a correct one, a broken one, none), and
/// `--links` against a running `alstats serve` that publishes its own association files.
@Suite(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"), .timeLimit(.minutes(5)))
struct CheckCLITests {
    static let appID = "ABCDE12345.com.example.couchin"
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 5 % 256) }.joined(separator: ":")
    static let association =
        #"{"applinks": {"details": [{"appIDs": ["\#(appID)"], "components": [{"/": "/l/*"}]}]}}"#
    static let assetLinks = #"""
        [{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app",
          "package_name": "com.example.couchin", "sha256_cert_fingerprints": ["\#(fingerprint)"]}}]
        """#
    static let page = """
        <meta property="al:ios:url" content="couchin://invite"><meta property="al:ios:app_name" content="Couchin'">
        <meta property="al:android:url" content="couchin://invite">
        <meta property="al:android:package" content="com.example.couchin">
        """

    @Test func aCorrectSiteExits0AndABrokenOneExits3NamingItsMistakes() throws {
        let good = try LoopbackHTTPServer(routes: [
            "/.well-known/apple-app-site-association": .file(
                status: 200, contentType: "application/json", body: Self.association),
            "/.well-known/assetlinks.json": .file(status: 200, contentType: "application/json", body: Self.assetLinks),
            "/l/invite": .page(status: 200, body: Self.page),
        ])
        defer { good.stop() }
        let text = try BuiltAlstats.run(["check", good.url("/l/invite").absoluteString])
        #expect(text.status == 0, "\(text.output)\(text.errors)")
        #expect(text.output.contains("  iOS       will open \(Self.appID)"), "\(text.output)")
        #expect(text.output.contains("  Android   will open com.example.couchin"))
        #expect(text.output.contains("  App Links will open iphone couchin://invite (Couchin')"))
        #expect(good.requests.allSatisfy { $0.headers["user-agent"]?.hasPrefix("alstats-check/") == true })

        let broken = try LoopbackHTTPServer(routes: [
            "/.well-known/apple-app-site-association": .redirect(to: "https://elsewhere.example/aasa"),
            "/.well-known/assetlinks.json": .file(status: 200, contentType: "text/plain", body: Self.assetLinks),
            "/l/invite": .page(status: 200, body: "<html></html>"),
        ])
        defer { broken.stop() }
        let json = try BuiltAlstats.run(["check", broken.url("/l/invite").absoluteString, "--format", "json"])
        #expect(json.status == 3, "\(json.output)\(json.errors)")
        let report = try JSONValue.parse(json.output)
        #expect(report["url"] == .string(broken.url("/l/invite").absoluteString))
        for platform in ["ios", "android", "applinks"] {
            #expect(report["platforms"]?[platform]?["ok"] == .bool(false), "\(platform): \(json.output)")
        }
        guard case .array(let reasons)? = report["platforms"]?["ios"]?["reasons"] else {
            Issue.record("no iOS reasons: \(json.output)")
            return
        }
        #expect(reasons.first?.stringValue?.contains("redirect to https://elsewhere.example/aasa") == true)
        #expect(report["platforms"]?["android"]?["apps"] == .array([]))
    }

    @Test func aSiteThatCannotBeReachedExits69AndBadArgumentsExit64() throws {
        let closed = try LoopbackHTTPServer(routes: [:])
        let url = closed.url("/l/invite").absoluteString
        closed.stop()
        let down = try BuiltAlstats.run(["check", url])
        #expect(down.status == 69, "\(down.output)\(down.errors)")
        for arguments in [["check"], ["check", "ftp://example.com/x"], ["check", url, "--links"]] {
            #expect(try BuiltAlstats.run(arguments).status == 64, "\(arguments)")
        }
    }

    @Test func linksChecksEveryHostedLinkOfARunningServeWithItsOwnAssociationFiles() throws {
        let fixture = ServerFixture()
        let config = fixture.folder.appendingPathComponent("serve.json").path
        try #"""
        {"ios_app_ids": ["\#(Self.appID)"],
         "android_apps": [{"package": "com.example.couchin", "sha256_cert_fingerprints": ["\#(Self.fingerprint)"]}]}
        """#.write(toFile: config, atomically: true, encoding: .utf8)
        let links = fixture.folder.appendingPathComponent("links.json").path
        try #"""
        [{"slug": "invite", "ios": [{"url": "couchin://invite", "app_name": "Couchin'"}],
          "android": [{"url": "couchin://invite", "package": "com.example.couchin"}],
          "web": {"url": "https://couchin.example/invite"}},
         {"slug": "autumn-sale", "ios": [{"url": "couchin://sale"}], "web": {"url": "https://couchin.example/sale"}}]
        """#.write(toFile: links, atomically: true, encoding: .utf8)
        let put = try BuiltAlstats.run(["links", "put", "--database", fixture.path, links])
        #expect(put.status == 0, "\(put.errors)")
        let noPublicURL = try BuiltAlstats.run(["check", "--links", "--database", fixture.path])
        #expect(noPublicURL.status == 64 && noPublicURL.errors.contains("give --public-url"), "\(noPublicURL.errors)")

        let server = try ServeProcess(database: fixture.path, arguments: ["--config", config])
        let check = try BuiltAlstats.run([
            "check", "--links", "--database", fixture.path, "--public-url", "http://127.0.0.1:\(server.port)",
            "--format", "json",
        ])
        #expect(check.status == 0, "\(check.output)\(check.errors)")
        let reports = try check.output.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        #expect(
            reports.map { $0["url"]?.stringValue } == [
                "http://127.0.0.1:\(server.port)/l/autumn-sale", "http://127.0.0.1:\(server.port)/l/invite",
            ])
        for report in reports {
            #expect(report["platforms"]?["ios"]?["apps"] == .array([.string(Self.appID)]), "\(report)")
            #expect(report["platforms"]?["android"]?["ok"] == .bool(true), "\(report)")
            #expect(report["platforms"]?["applinks"]?["ok"] == .bool(true), "\(report)")
        }
        #expect(server.stop(with: SIGTERM) == 0)
    }
}

#endif
