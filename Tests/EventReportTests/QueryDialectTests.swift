import EmbeddedSQLFiles
import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventReport
@testable import EventStoreInterface

struct QueryDialectTests {
    /// Two portable query files, and the PostgreSQL variants: one of a portable file, one of no portable file.
    static let files = [
        EmbeddedSQLFile(name: "daily.sql", text: "-- daily: events per day\nSELECT date(ts_ms / 1000, 'unixepoch');"),
        EmbeddedSQLFile(name: "hosts.sql", text: "-- hosts: source hosts\nSELECT 1;"),
    ]
    static let postgresFiles = [
        EmbeddedSQLFile(name: "daily.sql", text: "-- daily: events per day\nSELECT to_timestamp(ts_ms);"),
        EmbeddedSQLFile(name: "orphan.sql", text: "-- orphan: no portable file\nSELECT 2;"),
    ]

    @Test func postgresPicksTheVariantBesideAFileAndFallsBackToThePortableOne() {
        let queries = QueryCatalog.queries(in: Self.files, variants: Self.postgresFiles)
        #expect(queries.map(\.name) == ["daily", "hosts"])
        #expect(queries[0].text == "-- daily: events per day\nSELECT to_timestamp(ts_ms);")
        #expect(queries[0].summary == "events per day")
        #expect(queries[1].text == "-- hosts: source hosts\nSELECT 1;")
    }

    @Test func sqliteRunsThePortableFilesAndListsNoVariant() {
        let queries = QueryCatalog.queries(in: Self.files, variants: [])
        #expect(queries.map(\.name) == ["daily", "hosts"])
        #expect(queries[0].text == "-- daily: events per day\nSELECT date(ts_ms / 1000, 'unixepoch');")
    }

    @Test func everyBundledQueryIsListedOnceInEachDialect() {
        for dialect in QueryCatalog.Dialect.allCases {
            let names = QueryCatalog.all(dialect: dialect).map(\.name)
            #expect(names == QueryCatalog.all.map(\.name), "\(dialect)")
            #expect(names.allSatisfy { !$0.contains(".") }, "\(dialect)")
            #expect(QueryCatalog.query(named: "failure_reasons", dialect: dialect) != nil)
        }
    }

    @Test func theSQLiteReaderRunsQueriesAndReportsThroughReportSource() async throws {
        let database = try ReportDatabase(events: generatedEvents(count: 500, seed: 3))
        let source: any ReportSource = ReportReader(store: database.store)
        #expect(source.dialect == .sqlite)
        let query = try #require(QueryCatalog.query(named: "failure_reasons", dialect: source.dialect))
        let result = try await source.runQuery(query, parameters: [:])
        let direct = try QueryCatalog.run(query, parameters: [:], on: database.store)
        #expect(!result.rows.isEmpty)
        #expect(result == direct)
        let report = try await source.readReport(for: ReportQuery())
        let built = ReportBuilder().report(
            from: try ReportReader(store: database.store).rows(for: ReportQuery()), query: ReportQuery())
        #expect(report.totals.events > 0)
        #expect(report == built)
        await #expect(throws: QueryError.self) { try await source.runQuery(query, parameters: ["bogus": "1"]) }
    }

    /// A text parameter whose value looks like a number (`ref=007`) is text: it finds the ref `007` and no other,
    /// as PostgreSQL does (bound as the integer 7, SQLite found the ref `7`).
    @Test func aTextParameterThatLooksLikeANumberFindsItsText() throws {
        let database = try ReportDatabase(events: numberLikeSampleEvents)
        let daily = try #require(QueryCatalog.query(named: "daily_funnel"))
        for (count, ref) in zip(Int64(1)..., ["007", "7", "1e3"]) {
            let result = try QueryCatalog.run(daily, parameters: ["ref": ref], on: database.store)
            let arrivals = try #require(result.columns.firstIndex(of: "arrivals"))
            let attempts = try #require(result.columns.firstIndex(of: "nav_out"))
            let counts = result.rows.map { [$0[arrivals], $0[attempts]] }
            #expect(counts == [[.int(count), .int(count)]], "\(ref): \(result.rows)")
        }
        let recent = try #require(QueryCatalog.query(named: "recent_failures"))
        let failures = try QueryCatalog.run(recent, parameters: ["ref": "007", "limit": "10"], on: database.store)
        #expect(failures.rows.count == 1, "\(failures.rows)")
    }
}
