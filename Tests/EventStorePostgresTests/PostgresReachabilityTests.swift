#if Server

import EventStoreInterface
import Testing

@testable import EventStorePostgres

/// A server that refuses the connection fails the open at once, with the URL (its password hidden) and what to
/// check, instead of waiting out the connect timeout: here an hour, which the test's time limit would cut. No
/// PostgreSQL server is needed: port 9 (discard) has nothing listening.
struct PostgresReachabilityTests {
    @Test(.timeLimit(.minutes(1)))
    func aRefusedConnectionFailsAtOnceWithTheURLAndWhatToCheck() async throws {
        let options = PostgresEventStore.Options(connectTimeout: .seconds(3_600))
        let error = await #expect(throws: StoreError.self) {
            _ = try await PostgresEventStore.open(
                url: "postgres://alstats:Hunter2-s3cr3t@127.0.0.1:9/alstats?sslmode=disable", options: options)
        }
        #expect(error?.kind == .io)
        let message = error?.message ?? ""
        #expect(message.contains("postgres://alstats:***@127.0.0.1:9/alstats"), "\(message)")
        #expect(message.contains("refused") && message.contains("is the server running"), "\(message)")
        #expect(!message.contains("Hunter2"))
    }
}

#endif
