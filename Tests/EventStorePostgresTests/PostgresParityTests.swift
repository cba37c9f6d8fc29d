#if Server

import EventIngest
import EventReport
import EventStoreSQLite
import Foundation
import MeasurementEvents
import PostgresTestSupport
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// The same events written to the SQLite store and to PostgreSQL give the same report rows, byte-identical report
/// JSON for several filter sets and time zones, identical exports, and identical results of every bundled query.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresParityTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_774_137_600_000

    /// Windows with partial buckets and days at both edges, filters, time zones with and without daylight saving.
    static let queries: [ReportQuery] = [
        ReportQuery(),
        ReportQuery(timeZone: ReportTimeZone("Europe/Paris")!),
        ReportQuery(
            since: start + day + 123_456, until: start + 6 * day - 7_654_321, timeZone: ReportTimeZone("+05:30")!),
        ReportQuery(since: start + 2 * day + 900_000 * 3 + 5, until: start + 2 * day + 900_000 * 40 + 17),
        ReportQuery(ref: "feed", timeZone: ReportTimeZone("-08:00")!),
        ReportQuery(since: start + 3 * day - 1, refererApp: "Facebook", top: 2),
        ReportQuery(
            until: start + 4 * day + 3, ref: "share", refererApp: "Mail", timeZone: ReportTimeZone("Asia/Tokyo")!),
        ReportQuery(sourceHost: "video.example.org", timeZone: ReportTimeZone("Europe/Paris")!),
        ReportQuery(
            since: start + day + 123_456, until: start + 6 * day - 7_654_321, ref: "feed",
            sourceHost: "shop.example.net"),
        ReportQuery(link: "invite"),
        ReportQuery(
            since: start + 2 * day + 900_000 * 3 + 5, until: start + 7 * day + 17, refererApp: "Facebook",
            link: "spring-sale", timeZone: ReportTimeZone("+05:30")!),
    ]

    /// Windows compared with the previous one (the previous windows have partial buckets and days), every filter.
    static let comparedQueries: [ReportQuery] = [
        ReportQuery(since: start + 4 * day + 123_456, until: start + 9 * day - 7_654_321),
        ReportQuery(
            since: start + 5 * day, until: start + 9 * day, ref: "feed", timeZone: ReportTimeZone("Europe/Paris")!),
        ReportQuery(since: start + 5 * day + 5, until: start + 9 * day, refererApp: "Mail", top: 2),
        ReportQuery(
            since: start + 5 * day, until: start + 9 * day, sourceHost: "video.example.org",
            timeZone: ReportTimeZone("America/St_Johns")!),
        ReportQuery(
            since: start + 4 * day + 900_000 * 7 + 3, until: start + 9 * day, link: "invite",
            timeZone: ReportTimeZone("-08:00")!),
    ]

    @Test func bothBackendsGiveTheSameRowsReportsAndExports() async throws {
        let events = parityEvents(count: 6_000, seed: 42)
        let batches = stride(from: 0, to: events.count, by: 250).map { Array(events[$0..<min($0 + 250, events.count)]) }
        let folder = TemporaryDatabase()
        let sqlite = try SQLiteEventStore(path: folder.path)
        var sqliteStored: [Int] = []
        for pair in stride(from: 0, to: batches.count, by: 2) {
            sqliteStored += try sqlite.writeBatches(Array(batches[pair..<min(pair + 2, batches.count)]))
        }
        try sqlite.recordLosses([.bufferFull: 4, .tooManyFields: 2])
        try sqlite.recordPublicURL(LinkPublicURL("https://go.example.com")!)
        try await PostgresTestDatabase.with { url in
            let postgres = try await PostgresEventStore.open(url: url)
            var postgresStored: [Int] = []
            for pair in stride(from: 0, to: batches.count, by: 2) {
                postgresStored += try await postgres.writeBatches(Array(batches[pair..<min(pair + 2, batches.count)]))
            }
            try await postgres.recordLosses([.bufferFull: 4, .tooManyFields: 2])
            try await postgres.recordPublicURL(LinkPublicURL("https://go.example.com")!)
            #expect(postgresStored == sqliteStored)
            #expect(try await postgres.count() == (try sqlite.count()))
            #expect(try await postgres.completeness() == (try sqlite.completeness()))
            // The install path is there to compare: taps, installs, medians, deferred opens and first opens.
            let rows = try ReportReader(store: sqlite).rows(for: ReportQuery())
            #expect(rows.linkInstalls.contains { $0.storeTaps.total > 0 && $0.medianDelayMilliseconds != nil })
            #expect(rows.linkInstalls.contains { $0.deferredOpens > 0 } && rows.firstOpens.attributed > 0)
            try await Self.expectSameReports(sqlite: sqlite, postgres: postgres)
            try await Self.expectSameComparisons(sqlite: sqlite, postgres: postgres)
            try await Self.expectSameExports(sqlite: sqlite, postgres: postgres)
            try await Self.expectSameQueryResults(sqlite: sqlite, postgres: postgres)
            try await postgres.rebuildRollups()
            try await Self.expectSameReports(sqlite: sqlite, postgres: postgres)
            await postgres.close()
        }
    }

    /// Lines of every shape an ingest reads in place or decodes (``PostgresEventRowsTests/corpus(count:seed:)``:
    /// arrays and objects as values, escaped quotes and backslashes, secrets, aliases, hits, loss records) ingested
    /// from one file into both stores: the same counts and export. An array's JSON text, a value, holds quotes that
    /// `extra`'s JSON escapes: PostgreSQL must get them escaped, or its export cannot read the rows back.
    @Test func linesOfEveryShapeIngestedGiveTheSameExport() async throws {
        let folder = TemporaryDatabase()
        // Each line its own id, in the forms the corpus gives (it repeats a few ids).
        let lines = PostgresEventRowsTests.corpus(count: 3_000, seed: 5).enumerated().map { index, line in
            line.replacingOccurrences(of: "0123456789ab", with: String(format: "%012x", index))
                .replacingOccurrences(of: "0123456789AB", with: String(format: "%012X", index))
                .replacingOccurrences(of: "text-id-1", with: "text-id-\(index)")
        }
        let file = try PostgresStrictIngestTests.file(lines, in: folder)
        let sqlite = try SQLiteEventStore(path: folder.path)
        let expected = try sqlite.ingest([IngestInput(path: file)], options: IngestOptions(), onInvalidLine: { _ in })
        try await PostgresTestDatabase.with { url in
            let postgres = try await PostgresEventStore.open(url: url)
            let summary = try await postgres.ingestNDJSON([IngestInput(path: file)], options: IngestOptions()) { _ in }
            #expect(summary.stored == expected.stored && summary.stored > 2_000, "\(summary.stored)")
            #expect(try await postgres.count() == (try sqlite.count()))
            #expect(try await postgres.completeness() == (try sqlite.completeness()))
            var exported: [UInt8] = []
            try sqlite.export(since: .min, until: .max) { exported += $0 }
            var actual: [UInt8] = []
            try await postgres.export(since: .min, until: .max) { actual += $0 }
            #expect(actual == exported && !exported.isEmpty)
            await postgres.close()
        }
    }

    static func expectSameReports(
        sqlite: SQLiteEventStore, postgres: PostgresEventStore, for queries: [ReportQuery] = queries
    ) async throws {
        let reader = ReportReader(store: sqlite)
        for query in queries {
            let expected = try reader.rows(for: query)
            let actual = try await postgres.rows(for: query)
            #expect(actual.groups == expected.groups, "\(query)")
            #expect(actual.buckets == expected.buckets, "\(query)")
            #expect(actual.links == expected.links, "\(query)")
            #expect(actual.linkInstalls == expected.linkInstalls, "\(query)")
            #expect(actual.firstOpens == expected.firstOpens, "\(query)")
            #expect(actual.completeness == expected.completeness)
            #expect(!expected.groups.isEmpty)

            let expectedJSON = ReportFormat.json.render(ReportBuilder().report(from: expected, query: query))
            let actualJSON = ReportFormat.json.render(try await postgres.readReport(for: query))
            #expect(actualJSON == expectedJSON, "\(query)")
        }
    }

    /// `--compare previous` gives the same JSON on both backends, and on PostgreSQL too `previous` is the report of
    /// the previous window run on its own.
    static func expectSameComparisons(sqlite: SQLiteEventStore, postgres: PostgresEventStore) async throws {
        let reader = ReportReader(store: sqlite)
        for query in comparedQueries {
            let expected = try await reader.readReport(for: query, comparison: .previous)
            let actual = try await postgres.readReport(for: query, comparison: .previous)
            #expect(ReportFormat.json.render(actual) == ReportFormat.json.render(expected), "\(query)")
            #expect(actual == expected, "\(query)")
            let previousQuery = try #require(ReportComparison.previous.comparedQuery(for: query))
            let alone = try await postgres.readReport(for: previousQuery)
            #expect(actual.previous == alone, "\(query)")
            #expect((actual.previous?.totals.events ?? 0) > 0, "\(query)")
            #expect(actual.alerts != nil)
        }
    }

    /// Parameter sets for the bundled queries: none, a window with partial buckets and days, each text filter, a
    /// ref that matches nothing (empty results keep their columns), a limit, a fixed `now`.
    static let queryParameters: [[String: String]] = [
        [:],
        ["since": String(start + day + 123_456), "until": String(start + 6 * day - 7_654_321)],
        ["ref": "share"], ["ref": "no-such-ref"], ["slug": "invite", "ref": "feed"],
        ["referer_app": "Mail", "since": String(start + 2 * day)], ["limit": "7"], ["now": String(start + 8 * day)],
        ["source_host": "video.example.org"], ["source_host": "shop.example.net", "ref": "feed"], ["link": "invite"],
        ["link": "spring-sale", "since": String(start + day + 123_456), "until": String(start + 6 * day - 7_654_321)],
    ]

    /// Text parameters whose values look like numbers (`ref=007`) find the same rows on both backends, in every
    /// bundled query that has them.
    @Test func numberLikeTextParametersFindTheSameRowsOnBothBackends() async throws {
        let events = numberLikeSampleEvents
        let folder = TemporaryDatabase()
        let sqlite = try SQLiteEventStore(path: folder.path)
        _ = try sqlite.writeBatches([events])
        try await PostgresTestDatabase.with { url in
            let postgres = try await PostgresEventStore.open(url: url)
            _ = try await postgres.writeBatches([events])
            let reader = ReportReader(store: sqlite)
            var found = 0
            for query in QueryCatalog.all(dialect: .sqlite) {
                let variant = try #require(QueryCatalog.query(named: query.name, dialect: .postgres))
                let known = Set(PostgresNamedSQL(variant.text).names)
                for key in ["ref", "referer_app", "source_host"] where known.contains(key) {
                    for value in ["007", "7", "1e3"] {
                        let expected = try reader.runQuery(query, parameters: [key: value])
                        let actual = try await postgres.runQuery(variant, parameters: [key: value])
                        #expect(actual.rows == expected.rows, "\(query.name) \(key)=\(value)")
                        found += expected.rows.isEmpty ? 0 : 1
                    }
                }
            }
            #expect(found >= 20, "\(found)")
            await postgres.close()
        }
    }

    /// Every bundled query, over events whose counts tie in every dimension, gives the same bytes on both backends:
    /// each query's ORDER BY decides every tie the same way on SQLite and PostgreSQL.
    @Test func everyBundledQueryOrdersTiesTheSameWayOnBothBackends() async throws {
        let events = tiedEvents()
        let folder = TemporaryDatabase()
        let sqlite = try SQLiteEventStore(path: folder.path)
        _ = try sqlite.writeBatches([events])
        try sqlite.recordPublicURL(LinkPublicURL("https://go.example.com")!)
        try await PostgresTestDatabase.with { url in
            let postgres = try await PostgresEventStore.open(url: url)
            _ = try await postgres.writeBatches([events])
            try await postgres.recordPublicURL(LinkPublicURL("https://go.example.com")!)
            try await Self.expectSameQueryResults(sqlite: sqlite, postgres: postgres, atLeast: 12)
            let reports = [
                ReportQuery(), ReportQuery(ref: "a"), ReportQuery(refererApp: "B", timeZone: ReportTimeZone("-08:00")!),
            ]
            try await Self.expectSameReports(sqlite: sqlite, postgres: postgres, for: reports)
            await postgres.close()
        }
    }

    static func expectSameQueryResults(
        sqlite: SQLiteEventStore, postgres: PostgresEventStore, atLeast: Int = 30
    ) async throws {
        let reader = ReportReader(store: sqlite)
        var compared = 0
        for query in QueryCatalog.all(dialect: .sqlite) {
            let variant = try #require(QueryCatalog.query(named: query.name, dialect: .postgres))
            let known = Set(PostgresNamedSQL(variant.text).names)
            for parameters in queryParameters where Set(parameters.keys).isSubset(of: known) {
                let expected = try reader.runQuery(query, parameters: parameters)
                let actual = try await postgres.runQuery(variant, parameters: parameters)
                #expect(actual.columns == expected.columns, "\(query.name) \(parameters)")
                #expect(!actual.columns.isEmpty)
                #expect(actual.rows == expected.rows, "\(query.name) \(parameters)")
                for format in [ReportFormat.table, .csv, .json] {
                    #expect(actual.render(format) == expected.render(format), "\(query.name) \(parameters) \(format)")
                }
                compared += expected.rows.isEmpty ? 0 : 1
            }
        }
        #expect(compared >= atLeast)
        let unknown = try #require(QueryCatalog.query(named: "daily_funnel", dialect: .postgres))
        await #expect(throws: QueryError.self) { try await postgres.runQuery(unknown, parameters: ["slug": "x"]) }
    }

    static func expectSameExports(sqlite: SQLiteEventStore, postgres: PostgresEventStore) async throws {
        for (since, until) in [(Int64.min, Int64.max), (start + day + 5, start + 3 * day)] {
            var expected: [UInt8] = []
            try sqlite.export(since: since, until: until) { expected += $0 }
            var actual: [UInt8] = []
            try await postgres.export(since: since, until: until) { actual += $0 }
            #expect(!expected.isEmpty)
            #expect(actual == expected, "export from \(since) to \(until)")
        }
    }
}

#endif
