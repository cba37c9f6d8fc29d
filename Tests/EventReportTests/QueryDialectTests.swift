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
}
