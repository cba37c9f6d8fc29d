#if Server

import Foundation
import MeasurementEvents
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

#if canImport(Glibc)
import Glibc
#endif

/// The built `alstats serve --database postgres://...` as a user runs it: a listening process on a real server,
/// requests over a real socket.
@Suite(
    .enabled(
        if: PostgresTestDatabase.shouldRun && BuiltAlstats.shouldRun,
        "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test) and build alstats first"))
struct PostgresServeTests {
    static let start: Int64 = 1_772_323_200_000  // 2026-03-01T00:00:00Z
    static let minute: Int64 = 60_000

    /// The pages of `events` that a read of `[since, until)` through the time index reads (`Lossy Heap Blocks` of
    /// its bitmap scan): one range of 128 pages or two for a short window once the ranges are summarised, every
    /// page of every unsummarised range otherwise.
    static func pagesRead(_ url: String, since: Int64, until: Int64) async throws -> Int {
        try await PostgresTestDatabase.withConnection(url) { connection in
            try await connection.query("SET enable_seqscan = off", logger: PostgresTestDatabase.logger)
            var plan = ""
            let query = PostgresQuery(
                unsafeSQL:
                    "EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM events WHERE ts_ms >= \(since) AND ts_ms < \(until)"
            )
            for try await row in try await connection.query(query, logger: PostgresTestDatabase.logger) {
                plan += try row.decode(String.self)
            }
            guard let range = plan.range(of: #""Lossy Heap Blocks": [0-9]+"#, options: .regularExpression),
                let pages = Int(plan[range].split(separator: " ").last ?? "")
            else {
                Issue.record("no bitmap scan of events_by_time in \(plan)")
                return -1
            }
            return pages
        }
    }

    /// Makes March's partition with a first event, so that autovacuum and `autosummarize` can be turned off for
    /// it (nothing but serve may summarise it then), and starts `alstats serve` on the database with an upkeep every
    /// 0.2 s.
    static func serveMarchLeftToAlstats(_ url: String) async throws -> ServeProcess {
        let store = try await PostgresEventStore.open(url: url)
        let first = MeasurementEvent(
            id: EventID("first"), name: EventName.navIn, fields: ["ref": "r"], timestamp: Self.start)
        #expect(try await store.writeBatches([[first]]) == [1])
        await store.close()
        try await PostgresTestDatabase.leaveSummariesToAlstats(url, partition: "events_2026_03")
        return try ServeProcess(database: url, arguments: ["--upkeep-seconds", "0.2"])
    }

    /// Under a collector's load, ranges of the time index fill faster than autovacuum takes the requests to
    /// summarise them (it keeps 256 and visits once a minute), and an unsummarised range is read whole by every read
    /// by time. serve's upkeep (`--upkeep-seconds`) summarises them. Here autovacuum and `autosummarize` are off for
    /// the month, so that nothing else does: without the upkeep the window would read all the month's pages.
    @Test func serveSummarisesTheTimeIndexRangesItsWritesFilled() async throws {
        try await PostgresTestDatabase.with { url in
            let server = try await Self.serveMarchLeftToAlstats(url)
            // 12,000 events of about 1 KB, a minute apart: about 12 ranges of 128 pages.
            let note = String(repeating: "n", count: 900)
            var accepted = 0
            for request in 0..<24 {
                let body = (0..<500).map { position in
                    let number = request * 500 + position
                    return NDJSONCodec.line(
                        for: MeasurementEvent(
                            id: EventID("e\(number)"), name: EventName.navIn,
                            fields: ["ref": "r\(number % 3)", "note": note],
                            timestamp: Self.start + Int64(number + 1) * Self.minute))
                }.joined(separator: "\n")
                let answer = server.request("POST", "/v1/events", body: body)
                #expect(answer?.status == 200, "\(answer?.body ?? "no answer")")
                if let answer, case .int(let count)? = try JSONValue.parse(answer.body)["accepted"] {
                    accepted += Int(count)
                }
            }
            #expect(accepted == 12_000)
            let pages = try await PostgresTestDatabase.column(
                url, "SELECT pg_relation_size('events_2026_03') / 8192", as: Int.self)
            #expect(pages.first ?? 0 >= 10 * 128, "the month fills at least ten ranges: \(pages)")

            // A one-minute window in the fourth range reads its range (and the range still filling) once the
            // upkeep has summarised the filled ones, within a few of its calls.
            let since = Self.start + 4_000 * Self.minute
            var read = Int.max
            for _ in 0..<100 {
                read = try await Self.pagesRead(url, since: since, until: since + Self.minute)
                if read <= 3 * 128 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(read > 0 && read <= 3 * 128, "a one-minute window read \(read) pages")
            #expect(server.stop(with: SIGTERM) == 0, "\(server.stderr)")
            #expect(!server.stderr.contains("upkeep failed"), "\(server.stderr)")
            let reopened = try await PostgresEventStore.open(url: url)
            #expect(try await reopened.count() == 12_001)
            await reopened.close()
        }
    }

    /// The value of `name` in a `/metrics` exposition, or nil when it is not there.
    static func metric(_ name: String, in exposition: String) -> Double? {
        exposition.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
            Double($0.split(separator: " ")[1])
        }
    }

    /// An upkeep that meets a partition's lock held longer than it waits (another server summarising, a `VACUUM`)
    /// is no failure: `/metrics` counts it in `alstats_upkeep_deferred_total`, not in `alstats_upkeep_failed_total`,
    /// and the log has a notice. (That a later call summarises the partition is
    /// `PostgresTimeIndexTests.aSummaryThatMeetsAHeldLockLeavesItsPartitionsForTheNextCall`.)
    @Test func anUpkeepThatMeetsAHeldLockIsCountedAsDeferred() async throws {
        try await PostgresTestDatabase.with { url in
            let server = try await Self.serveMarchLeftToAlstats(url)
            try await PostgresTestDatabase.withConnection(url) { holder in
                try await holder.query("BEGIN", logger: PostgresTestDatabase.logger)
                try await holder.query(
                    "LOCK TABLE events_2026_03 IN SHARE UPDATE EXCLUSIVE MODE", logger: PostgresTestDatabase.logger)
                let body = (0..<50).map { number in
                    NDJSONCodec.line(
                        for: MeasurementEvent(
                            id: EventID("e\(number)"), name: EventName.navIn, fields: ["ref": "r"],
                            timestamp: Self.start + Int64(number + 1) * Self.minute))
                }.joined(separator: "\n")
                #expect(server.request("POST", "/v1/events", body: body)?.status == 200)
                var deferred: Double?
                for _ in 0..<80 where (deferred ?? 0) < 1 {
                    try await Task.sleep(for: .milliseconds(100))
                    deferred = server.request("GET", "/metrics", key: "r1").flatMap {
                        Self.metric("alstats_upkeep_deferred_total", in: $0.body)
                    }
                }
                #expect((deferred ?? 0) >= 1, "the upkeep waits 2 s for the lock, then defers")
                try await holder.query("ROLLBACK", logger: PostgresTestDatabase.logger)
            }
            let metrics = server.request("GET", "/metrics", key: "r1")?.body ?? ""
            #expect(Self.metric("alstats_upkeep_failed_total", in: metrics) == 0, "\(metrics)")
            #expect(server.stop(with: SIGTERM) == 0, "\(server.stderr)")
            #expect(server.stderr.contains("left part of its work"), "\(server.stderr)")
        }
    }
}

#endif
