#if Server

import EventStoreInterface
import EventStorePostgres
import Foundation
import MeasurementEvents
import PostgresTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two built `alstats serve` on one PostgreSQL database, both evaluating the alerts every second and posting to one
/// webhook: each episode is posted once when it fires and once when it resolves, whichever server gets there first.
@Suite(
    .enabled(
        if: PostgresTestDatabase.shouldRun && BuiltAlstats.shouldRun,
        "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test) and build alstats first"),
    .timeLimit(.minutes(5)))
struct PostgresAlertServeTests {
    @Test func twoServersOnOneDatabasePostEachEpisodeOnceWhenItFiresAndOnceWhenItResolves() async throws {
        try await PostgresTestDatabase.with { url in
            let now = Int64(Date().timeIntervalSince1970 * 1_000)
            let store = try await PostgresEventStore.open(url: url)
            _ = try await store.writeBatches([
                BrokenHostTraffic.events(endingAt: now, brokenHoursAgo: 6, healthyHoursAgo: 30)
            ])
            await store.close()
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let folder = TemporaryDatabase()
            let config = try AlertServeTests.config(in: folder.folder, webhook: receiver.url("/hooks/s3cr3t"))
            let servers = try (0..<2).map { _ in try ServeProcess(database: url, arguments: ["--config", config]) }

            let firing = try await receiver.requests(atLeast: 1)
            #expect(firing.first?.json?["status"] == "firing")
            for server in servers { try await server.waitForAlertEvaluations(try server.alertEvaluations() + 2) }
            #expect(receiver.requests.count == 1, "\(receiver.requests.map(\.body))")

            let recovery = BrokenHostTraffic.recovery(endingAt: now, hoursAgo: 5)
            #expect(servers[1].request("POST", "/v1/events", body: AlertServeTests.ndjson(recovery))?.status == 200)
            let resolved = try await receiver.requests(atLeast: 2)
            #expect(resolved[1].json?["status"] == "resolved")
            for server in servers { try await server.waitForAlertEvaluations(try server.alertEvaluations() + 2) }
            #expect(receiver.requests.count == 2, "\(receiver.requests.map(\.body))")
            for server in servers {
                #expect(server.stop(with: SIGTERM) == 0, "\(server.stderr)")
                #expect(!server.stderr.contains("s3cr3t"))
            }
        }
    }
}

#endif
