import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventReport
@testable import EventStoreInterface

/// Golden outputs of every format for a small fixed dataset. To accept a deliberate change of output,
/// run the tests with ALSTATS_UPDATE_GOLDEN=1 and review the diff of Tests/EventReportTests/Golden/.
struct ReportOutputTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func goldenReport() throws -> Report {
        let database = try ReportDatabase(
            events: generatedEvents(count: 60, seed: 3, start: 1_763_683_200_000, days: 3)
                + generatedLinkEvents(count: 40, seed: 4, start: 1_763_683_200_000, days: 3),
            publicURLs: [LinkOracle.publicURL])
        try database.store.recordLosses([.bufferFull: 2])
        return try ReportReader(store: database.store).report(
            for: ReportQuery(timeZone: ReportTimeZone("Europe/Paris")!, top: 3))
    }

    @Test(arguments: ReportFormat.allCases)
    func eachFormatMatchesItsGoldenFile(_ format: ReportFormat) throws {
        let output = format.render(try Self.goldenReport())
        let file = Self.golden.appendingPathComponent("report.\(format.rawValue)")
        if ProcessInfo.processInfo.environment["ALSTATS_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
            try output.write(to: file, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(output == expected)
    }

    @Test(arguments: [
        (1, "1 event dropped, 0 rejected"), (2, "2 events dropped, 0 rejected"),
        (1_204, "1,204 events dropped, 0 rejected"),
    ])
    func theCompletenessLineCountsOneDroppedEventInTheSingular(dropped: Int, line: String) {
        let completeness = Report.Completeness(dropped: dropped, rejected: 0, altered: 0, byReason: [:])
        #expect(ReportText.completeness(completeness) == line)
    }

    /// With a filter, every format says which filters the store's loss counts cannot follow (a lost line has no
    /// fields), instead of showing them as if filtered; without one, only JSON's empty list says so.
    @Test func everyFormatSaysWhichFiltersTheLossesDoNotFollow() throws {
        let database = try ReportDatabase(events: generatedEvents(count: 20, seed: 5))
        try database.store.recordLosses([.bufferFull: 2])
        let reader = ReportReader(store: database.store)
        let filtered = try reader.report(for: ReportQuery(ref: "feed", link: "invite"))
        #expect(filtered.completeness.dropped == 2)
        #expect(filtered.completeness.notFilteredBy == ["ref", "link"])
        #expect(ReportFormat.json.render(filtered).contains(#""not_filtered_by":["ref","link"]"#))
        #expect(ReportFormat.csv.render(filtered).contains("completeness,ref,not_filtered_by,\r\n"))
        for format in [ReportFormat.table, .markdown, .html] {
            #expect(
                format.render(filtered).contains("counted for every ref and link: a loss other than applink_rejected"),
                "\(format)")
        }
        let plain = try reader.report(for: ReportQuery())
        #expect(ReportFormat.json.render(plain).contains(#""not_filtered_by":[]"#))
        #expect(!ReportFormat.table.render(plain).contains("counted for every"))
    }

    @Test func tableLinesFitOneHundredColumns() throws {
        var events = generatedEvents(count: 200, seed: 11)
        events[0].fields[FieldName.refererAppName] = String(repeating: "A very long referer app name ", count: 8)
        events[0].name = EventName.navIn
        let database = try ReportDatabase(events: events)
        let report = try ReportReader(store: database.store).report(for: ReportQuery(top: 10))
        let table = ReportFormat.table.render(report)
        for line in table.split(separator: "\n")
        where !line.hasPrefix("  all events") && !line.hasPrefix("  completeness") {
            #expect(line.count <= 100, "\(line)")
        }
        #expect(table.contains("(none)"))
        #expect(!table.contains("\u{1B}["))
        #expect(ReportFormat.table.render(report, colour: true).contains("\u{1B}[1m"))
    }

    /// Values a client sent are printed with their control characters written out (`\u001B`), in the tables, in the
    /// completeness line (a device's loss reason) and in the alerts' text: a ref of `ESC[2J` would clear the reader's
    /// terminal, `ESC]0;...BEL` retitle it.
    @Test func controlCharactersOfValuesArePrintedWrittenOut() throws {
        var events = generatedEvents(count: 200, seed: 12)
        let hostile = "\u{1B}[2J\u{1B}]0;pwned\u{07}X\u{0}\u{9B}"
        for index in 0..<20 { events[index].fields[FieldName.ref] = hostile }
        let loss = ["reason": "\u{1B}[2Jgone", "count": "3"]
        events.append(MeasurementEvent(name: "alstats_loss", fields: loss, timestamp: events[0].timestamp))
        let database = try ReportDatabase(events: events)
        let report = try ReportReader(store: database.store).report(for: ReportQuery(top: 50))
        for format in [ReportFormat.table, .markdown] {
            let text = format.render(report)
            #expect(text.contains(#"\u001B[2J\u001B]0;pwned\u0007X\u0000\u009B"#), "\(format)")
            #expect(text.contains(#"device:\u001B[2Jgone 3"#), "\(format): \(text.prefix(400))")
            #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(format)")
        }
        #expect(ReportFormat.json.render(report).contains(#"\u001b[2J"#), "JSON escapes them as JSON does")
        let alert = Report.Alert(
            dimension: .ref, value: hostile, measure: .navOutSuccessRate,
            now: .init(attempts: 100, succeeded: 10), before: .init(attempts: 100, succeeded: 90))
        #expect(alert.sliceDescription == #"ref \u001B[2J\u001B]0;pwned\u0007X\u0000\u009B"#)
    }

    @Test func jsonFollowsTheContract() throws {
        let json = try JSONValue.parse(ReportFormat.json.render(try Self.goldenReport()))
        let top = try #require(json.objectValue)
        #expect(
            top.keys == [
                "window", "totals", "navigation", "back_navigation", "referer_apps", "ref_categories", "daily",
                "completeness", "links", "installs",
            ])
        #expect(json["window"]?.objectValue?.keys == ["since", "until", "timezone"])
        #expect(json["window"]?["timezone"] == "Europe/Paris")
        #expect(
            json["totals"]?["by_name"]?.objectValue?.keys == ["al_nav_in", "al_nav_out", "al_ref_back_out", "other"])
        #expect(
            json["navigation"]?.objectValue?.keys == [
                "attempts", "succeeded", "success_rate", "by_type", "failure_reasons", "source_hosts",
            ])
        #expect(json["navigation"]?["by_type"]?.objectValue?.keys == ["app", "web", "fail"])
        #expect(json["back_navigation"]?.objectValue?.keys == ["attempts", "succeeded", "success_rate"])
        guard case .array(let apps) = json["referer_apps"], case .array(let refs) = json["ref_categories"],
            case .array(let days) = json["daily"]
        else {
            Issue.record("referer_apps, ref_categories and daily must be arrays")
            return
        }
        #expect(apps.allSatisfy { $0.objectValue?.keys == ["name", "arrivals", "share", "returns", "return_rate"] })
        #expect(
            refs.allSatisfy {
                $0.objectValue?.keys == [
                    "ref", "arrivals", "nav_out_attempts", "nav_out_succeeded", "nav_out_success_rate", "returns",
                ]
            })
        #expect(
            days.allSatisfy {
                $0.objectValue?.keys == ["date", "al_nav_in", "al_nav_out", "al_ref_back_out", "nav_out_success_rate"]
            })
        #expect(
            json["completeness"]?.objectValue?.keys == [
                "dropped", "rejected", "altered", "by_reason", "not_filtered_by",
            ])
        guard case .array(let links) = json["links"], !links.isEmpty else {
            Issue.record("links must be a non-empty array here")
            return
        }
        #expect(
            links.allSatisfy {
                $0.objectValue?.keys == [
                    "slug", "hits", "visitors", "crawler_fetches", "not_found", "arrivals", "arrival_rate",
                    "store_taps", "installs", "deferred_opens", "install_rate", "median_delay_ms",
                ] && $0["store_taps"]?.objectValue?.keys == ["ios", "android"]
                    && $0["installs"]?.objectValue?.keys == ["ios", "android"]
            })
        #expect(json["installs"]?.objectValue?.keys == ["first_opens", "attributed", "organic"])
        #expect(links.contains { $0["median_delay_ms"] != .null }, "the golden data has installs")
        #expect(json["installs"]?["first_opens"] != .int(0))
    }

    @Test func csvQuotesFieldsWithCommasAndQuotes() {
        #expect(CSVRenderer.field("plain") == "plain")
        #expect(CSVRenderer.field("a,b") == "\"a,b\"")
        #expect(CSVRenderer.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSVRenderer.field("line\nbreak") == "\"line\nbreak\"")
    }
}

struct QueryFileTests {
    @Test func everyBundledQueryRunsWithAndWithoutParameters() throws {
        let database = try ReportDatabase(
            events: generatedEvents(count: 3_000, seed: 5) + generatedLinkEvents(count: 500, seed: 6),
            publicURLs: [LinkOracle.publicURL])
        #expect(QueryCatalog.all.count >= 8)
        for query in QueryCatalog.all {
            #expect(!query.summary.isEmpty, "\(query.name) needs a one-line description")
            #expect(query.text.contains("-- Parameters") && query.text.contains("-- Columns"), "\(query.name) header")
            let result = try QueryCatalog.run(query, parameters: [:], on: database.store)
            #expect(!result.columns.isEmpty)
            #expect(!result.rows.isEmpty, "\(query.name) returned no rows on a populated database")
        }
        let filtered = try QueryCatalog.run(
            QueryCatalog.query(named: "daily_funnel")!, parameters: ["since": "1774137600000", "ref": "feed"],
            on: database.store)
        #expect(!filtered.rows.isEmpty)
        #expect(throws: QueryError.self) {
            try QueryCatalog.run(
                QueryCatalog.query(named: "daily_funnel")!, parameters: ["bogus": "1"], on: database.store)
        }
    }

    @Test func theFunnelAgreesWithTheReport() throws {
        let database = try ReportDatabase(events: generatedEvents(count: 3_000, seed: 5))
        let report = try ReportReader(store: database.store).report(for: ReportQuery())
        let funnel = try QueryCatalog.run(
            QueryCatalog.query(named: "daily_funnel")!, parameters: [:], on: database.store)
        func sum(_ column: String) -> Int64 {
            let index = funnel.columns.firstIndex(of: column)!
            return funnel.rows.reduce(0) { total, row in
                if case .int(let value) = row[index] { total + value } else { total }
            }
        }
        #expect(sum("arrivals") == Int64(report.totals.byName[EventName.navIn]!))
        #expect(sum("nav_out") == Int64(report.navigation.attempts))
        #expect(sum("returns") == Int64(report.backNavigation.attempts))
    }

    // Under CI the tool is required: the test runs and fails without it instead of skipping.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") || BuiltAlstats.isCI,
            "needs the sqlite3 CLI"))
    func everyQueryFileRunsAsItIsInSqlite3() throws {
        let database = try ReportDatabase(events: generatedEvents(count: 500, seed: 9))
        let files = try FileManager.default.contentsOfDirectory(atPath: Repository.path("Queries")).filter {
            $0.hasSuffix(".sql")  // the PostgreSQL variants are in Queries/postgres/
        }
        #expect(files.count == QueryCatalog.all.count)
        for file in files {
            let sql = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Queries/\(file)")))
            let result = try ProcessRunner.run("/usr/bin/sqlite3", ["-bail", database.path], input: sql)
            #expect(result.status == 0, "\(file): \(result.errors)")
            #expect(result.errors.isEmpty, "\(file): \(result.errors)")
        }
    }
}
