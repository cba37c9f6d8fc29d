import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// End to end: runs the built `alstats` binary (next to the test bundle) on the example page.
@Suite(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
struct LinkDebuggerCLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The page AppLinksTests' `HTTPAppLinkResolverTests` serves: an iOS target, no web fallback.
    static let page = """
        <meta property="al:ios:url" content="example-ios://article/1">
        <meta property="al:ios:app_name" content="Example">
        <meta property="al:web:should_fallback" content="false">
        """

    /// Runs the built `alstats` in the repository root (the example page's paths are relative to it).
    func run(_ arguments: [String]) throws -> ProcessResult {
        try BuiltAlstats.run(arguments, in: Self.root)
    }

    @Test func inspectPrintsTheLegacyLinkAsJSON() throws {
        let result = try run([
            "inspect",
            "fb123://authorize#expires_in=0&access_token=T&target_url=https%3A%2F%2Fexample.com%2Fa%3Fref%3Dfeed",
            "--format", "json", "--show-secrets",
        ])
        #expect(result.status == 0)
        let json = try JSONValue.parse(result.output)
        #expect(json["targetURL"] == "https://example.com/a?ref=feed")
        #expect(json["isAppLink"] == true)
        #expect(json["ref"] == "feed")
        #expect(json["event"]?["name"] == "al_nav_in")
        #expect(json["inputQueryParameters"]?["access_token"] == "T")
    }

    @Test func resolveListsTargetsInPlatformOrder() throws {
        let result = try run([
            "resolve", "--html", "Examples/article.html", "--url", "https://example.com/article", "--format", "json",
        ])
        #expect(result.status == 0)
        guard case .array(let targets)? = try JSONValue.parse(result.output)["targets"] else {
            Issue.record("no targets in \(result.output)")
            return
        }
        #expect(targets.map { $0["url"] } == ["example-iphone://article/42?view=compact", "example-ios://article/42"])
    }

    /// Over HTTP, `resolve` and `navigate` name themselves in their User-Agent.
    @Test func resolveAndNavigateSendTheirOwnUserAgent() throws {
        let server = try LoopbackHTTPServer(routes: ["/article": .page(status: 200, body: Self.page)])
        defer { server.stop() }
        for command in ["resolve", "navigate"] {
            let result = try run([command, server.url("/article").absoluteString, "--format", "json"])
            #expect(result.status == 0, "\(result.errors)")
        }
        let agents = server.requests.map { $0.headers["user-agent"] ?? "none" }
        #expect(agents.count == 2)
        #expect(
            agents.allSatisfy { $0.hasPrefix("alstats-resolve/") || $0.hasPrefix("alstats-navigate/") }, "\(agents)")
        #expect(Set(agents.map { $0.split(separator: "/").first ?? "" }) == ["alstats-resolve", "alstats-navigate"])
    }

    @Test func navigateChoosesTheInstalledApp() throws {
        let result = try run([
            "navigate", "--html", "Examples/article.html", "--url", "https://example.com/article", "--installed",
            "EXAMPLE-IOS", "--format", "json",
        ])
        #expect(result.status == 0)
        let json = try JSONValue.parse(result.output)
        #expect(json["chosen"]?["type"] == "app")
        #expect(json["chosen"]?["url"]?.stringValue?.hasPrefix("example-ios://article/42?al_applink_data=") == true)
        #expect(json["event"]?["name"] == "al_nav_out")
    }

    @Test(arguments: [
        (["resolve", "--html", "missing.html", "--url", "https://example.com/a"], Int32(66)),
        (["resolve", "--html", "Examples/article.html"], Int32(64)),
        (
            ["navigate", "--html", "Examples/article.html", "--url", "https://example.com/a", "--extras", "{"],
            Int32(65)
        ),
        (["inspect", "no scheme"], Int32(65)),
    ])
    func exitsWithTheSpecStatus(arguments: [String], status: Int32) throws {
        #expect(try run(arguments).status == status)
    }

    @Test func resolveAndNavigateFetchPagesOverHTTP() throws {
        let server = try LoopbackHTTPServer(routes: [
            "/article": .page(status: 200, body: Self.page), "/gone": .page(status: 410, body: ""),
        ])
        defer { server.stop() }
        let resolved = try run(["resolve", server.url("/article").absoluteString, "--format", "json"])
        #expect(resolved.status == 0)
        #expect(try JSONValue.parse(resolved.output)["webURL"] == .null)

        let failed = try run(["navigate", server.url("/gone").absoluteString, "--format", "json"])
        #expect(failed.status == 74)
        let json = try JSONValue.parse(failed.output)
        #expect(json["chosen"]?["type"] == "fail")
        #expect(json["event"]?["fields"]?["error"] == "http_status_410")
    }

    @Test(arguments: ["text", "json"])
    func secretsArePrintedOnlyWhenAskedFor(format: String) throws {
        let legacy = "fb123://authorize#access_token=TOKEN123&target_url=https%3A%2F%2Fexample.com%2Fa"
        let embedded = "example://p?al_applink_data=" + encoded(#"{"extras":{"fb_access_token":"TOKEN456"}}"#)
        for url in [legacy, embedded] {
            let hidden = try run(["inspect", url, "--format", format])
            #expect(hidden.status == 0)
            #expect(!hidden.output.contains("TOKEN"))
            #expect(hidden.output.contains("REDACTED"))
            #expect(try run(["inspect", url, "--format", format, "--show-secrets"]).output.contains("TOKEN"))
        }
        let navigation = try run([
            "navigate", "--html", "Examples/article.html", "--url", "https://example.com/article", "--format", format,
            "--app-link-data", #"{"access_token":"TOKEN789"}"#,
        ])
        #expect(!navigation.output.contains("TOKEN789"))
    }
}

/// `json` percent-encoded for a query value (AppLinksTests' `encoded` keeps `-._~` as they are; either is valid).
private func encoded(_ json: String) -> String {
    json.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? json
}
