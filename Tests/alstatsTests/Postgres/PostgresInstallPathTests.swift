#if Server

import Foundation
import MeasurementEvents
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The install path end to end on PostgreSQL (docs/install.md): the run of ``InstallPathScenario`` against the built
/// `alstats serve --database postgres://...`, and two collectors sharing the database that get the claims of one
/// click at the same moment.
@Suite(
    .enabled(
        if: PostgresTestDatabase.shouldRun && BuiltAlstats.shouldRun,
        "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test) and build alstats first"))
struct PostgresInstallPathTests {
    /// Every row of every table of the database, as text.
    static func everyRow(_ url: String) async throws -> String {
        let tables = try await PostgresTestDatabase.column(
            url,
            "SELECT format('%I', table_name) FROM information_schema.tables "
                + "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'", as: String.self)
        var text = ""
        for table in tables {
            let rows = try await PostgresTestDatabase.column(
                url, "SELECT coalesce(string_agg(t::text, '|'), '') FROM \(table) AS t", as: String.self)
            text += rows.joined()
        }
        return text
    }

    @Test func anAndroidPhoneAndAnIPhoneInstallFromTheStoreAndOpenOnTheLinkWithNoAddressOrUserAgentStored()
        async throws
    {
        try await PostgresTestDatabase.with { url in
            let scenario = try InstallPathScenario(database: url)
            try InstallPathScenario.expectFunnel(try await scenario.run())
            #expect(scenario.server.stop(with: SIGTERM) == 0)
            let rows = try await Self.everyRow(url)
            #expect(rows.contains("alstats_link_install") && rows.contains("deferred"), "the rows are read")
            for text in InstallPathScenario.identifying {
                #expect(!rows.contains(text), "\(text) is in the database")
            }
        }
    }

    /// A page of the first collector mints the click; sixteen installs claim it at once, half through each collector:
    /// one `200`, fifteen `409`, and one install event.
    @Test func twoCollectorsGettingTheClaimsOfOneClickAtOnceLetExactlyOneInstallWin() async throws {
        try await PostgresTestDatabase.with { url in
            let first = try InstallPathScenario(database: url)
            let second = try ServeProcess(database: url, arguments: ["--public-url", InstallPathScenario.publicURL])
            let put = first.server.request(
                "PUT", "/api/links/invite", key: "a1", contentType: "application/json",
                body: LinkServeProcessTests.invite)
            #expect(put?.status == 200)
            let page = try first.page(InstallPathScenario.android)
            let hop = try #require(
                InstallPathScenario.attribute("href", ofAnchorTo: "/l/invite/store/android", in: page))
            let click = String(try #require(hop.split(separator: "=").dropFirst().first).prefix(22))
            // The click is stored by the first collector's recorder within 100 ms; the second one reads it there.
            var stored = false
            for _ in 0..<100 where !stored {
                let rows = try await PostgresTestDatabase.column(
                    url, "SELECT count(*) FROM click_tokens WHERE token = '\(click)'", as: Int64.self)
                stored = rows.first == 1
                if !stored { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(stored)
            let ports = [first.server.port, second.port]
            let statuses = StatusBox()
            DispatchQueue.concurrentPerform(iterations: 16) { index in
                let body = #"{"click": "\#(click)", "install": "install-\#(index)", "platform": "android"}"#
                let answer = HTTPAnswer.fetch(
                    port: ports[index % 2], "POST", "/v1/deferred", key: "w1", contentType: "application/json",
                    body: Array(body.utf8))
                statuses.append(answer?.status ?? 0)
            }
            #expect(statuses.values.filter { $0 == 200 }.count == 1, "\(statuses.values)")
            #expect(statuses.values.filter { $0 == 409 }.count == 15, "\(statuses.values)")
            #expect(first.server.stop(with: SIGTERM) == 0 && second.stop(with: SIGTERM) == 0)
            let installs = try await PostgresTestDatabase.column(
                url, "SELECT count(*) FROM events WHERE name = 'alstats_link_install'", as: Int64.self)
            #expect(installs == [1])
        }
    }
}

/// The statuses of concurrent requests.
final class StatusBox: @unchecked Sendable {
    // @unchecked Sendable: `statuses` is only touched under `lock`.
    private let lock = NSLock()
    private var statuses: [Int] = []

    func append(_ status: Int) { lock.withLock { statuses.append(status) } }
    var values: [Int] { lock.withLock { statuses } }
}

#endif
