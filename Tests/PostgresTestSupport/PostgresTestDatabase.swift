#if Server

import EventStoreInterface
import EventStorePostgres
import Foundation
import Logging
import PostgresNIO
import TestSupport

/// A fresh database per test on the server named by `ALSTATS_TEST_POSTGRES_URL` (`.ci/postgres` starts one),
/// dropped when the test ends.
///
/// Without the variable the tests that need it are skipped on a developer's machine, and FAIL under CI (`CI`
/// set): a CI run that skipped them would pass without testing the PostgreSQL backend.
///
/// ```swift
/// @Test(.enabled(if: PostgresTestDatabase.shouldRun)) func writes() async throws {
///     try await PostgresTestDatabase.with { url in let store = try await PostgresEventStore.open(url: url) ... }
/// }
/// ```
public enum PostgresTestDatabase {
    /// The server's URL, from the environment.
    public static let serverURL = ProcessInfo.processInfo.environment["ALSTATS_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Whether tests that need PostgreSQL run: a server is named, or this is CI (where its absence is a failure).
    /// A test it skips is counted, and the end of the run says how many were and how to run them (``SkippedTests``).
    public static var shouldRun: Bool {
        if serverURL != nil || BuiltAlstats.isCI { return true }
        SkippedTests.skip("PostgreSQL", runWith: "bash .ci/postgres swift test")
        return false
    }

    /// No server is named under CI.
    public struct Missing: Error, CustomStringConvertible {
        public var description: String {
            "ALSTATS_TEST_POSTGRES_URL is not set: run the tests through .ci/postgres (bash .ci/postgres swift test)"
        }
    }

    /// Runs `body` with the URL of a new, empty database, then drops the database.
    public static func with<Result>(_ body: (String) async throws -> Result) async throws -> Result {
        guard let serverURL else { throw Missing() }
        let name = "alstats_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try await admin(serverURL, "CREATE DATABASE \(name)")
        let url = databaseURL(serverURL, name: name)
        do {
            let result = try await body(url)
            try await admin(serverURL, "DROP DATABASE \(name) WITH (FORCE)")
            return result
        } catch {
            try? await admin(serverURL, "DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
    }

    /// `serverURL` with its database replaced by `name`.
    public static func databaseURL(_ serverURL: String, name: String) -> String {
        var components = URLComponents(string: serverURL)!
        components.path = "/" + name
        return components.string!
    }

    /// Runs `sql` on the server's own database, on a connection of its own.
    public static func admin(_ url: String, _ sql: String) async throws {
        _ = try await withConnection(url) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
    }

    /// The first column of every row `sql` returns on `url`, decoded as `Value`.
    public static func column<Value: PostgresDecodable>(_ url: String, _ sql: String, as _: Value.Type) async throws
        -> [Value]
    {
        try await withConnection(url) { connection in
            var values: [Value] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
                values.append(try row.decode(Value.self))
            }
            return values
        }
    }

    /// Turns autovacuum and `autosummarize` off for `partition` of `events` and its `events_by_time`, so that
    /// only alstats summarises the time index's ranges there (tests of that summarising, which fail without it).
    public static func leaveSummariesToAlstats(_ url: String, partition: String) async throws {
        let index = try await column(
            url,
            "SELECT i.indexrelid::regclass::text FROM pg_index AS i "
                + "JOIN pg_partition_tree('events_by_time'::regclass) AS tree ON tree.relid = i.indexrelid "
                + "WHERE i.indrelid = '\(partition)'::regclass", as: String.self)
        guard index.count == 1 else { throw PartitionIndexMissing(partition: partition, found: index) }
        try await admin(url, "ALTER TABLE \(partition) SET (autovacuum_enabled = off)")
        try await admin(url, "ALTER INDEX \(index[0]) SET (autosummarize = off)")
    }

    /// A partition without exactly one index of `events_by_time`.
    public struct PartitionIndexMissing: Error {
        public var partition: String
        public var found: [String]
    }

    /// Waits until another session of the database at `url` waits for a lock (`wait_event_type = 'Lock'` in
    /// `pg_stat_activity`; of the kind `waitEvent` names, such as `advisory` or `relation`, when given), and returns
    /// its process id: how a race test knows that the step it started has reached the lock it is meant to meet,
    /// however slow the run. Polls on a connection of its own, one transaction per look (a transaction sees one
    /// snapshot of `pg_stat_activity`).
    /// - Throws: ``LockWaitMissing`` when no session waits within `limit`: the test fails, naming the wait.
    public static func waitForLockWait(
        _ url: String, on waitEvent: String? = nil, within limit: Duration = .seconds(60)
    ) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        let kind = waitEvent.map { " AND wait_event = '\($0)'" } ?? ""
        let sql =
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
            + "AND wait_event_type = 'Lock'\(kind) LIMIT 1"
        return try await withConnection(url) { connection in
            while ContinuousClock.now < deadline {
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
                    return try row.decode(Int32.self)
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw LockWaitMissing(waitEvent: waitEvent, limit: limit)
        }
    }

    /// No session of the database waited for the lock within the time given.
    public struct LockWaitMissing: Error, CustomStringConvertible {
        public var waitEvent: String?
        public var limit: Duration

        public var description: String {
            "no other session of the test database waited for \(waitEvent.map { "a lock (\($0))" } ?? "a lock") "
                + "within \(limit): the step meant to meet the lock never reached it"
        }
    }

    public static let logger = Logger(label: "alstats.test.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` with a connection of its own to `url` (not from a store's pool).
    public static func withConnection<Result>(
        _ url: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let location = try PostgresServerURL(url)
        let client = PostgresClient(configuration: location.configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await client.withConnection { try await body($0) }
        }
    }
}

#endif
