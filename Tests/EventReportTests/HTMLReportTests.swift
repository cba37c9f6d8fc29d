import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventReport
@testable import EventStoreInterface

/// The HTML report: escaping of event values, charts with their titles and labels, the same numbers as JSON.
struct HTMLReportTests {
    static let script = "<script>window.__pwned=1</script>"
    static let attribute = "\"><img src=x onerror=\"window.__pwned=1\">"

    @Test(arguments: [
        ("plain", "plain"), ("<", "&lt;"), (">", "&gt;"), ("&", "&amp;"), ("\"", "&quot;"), ("'", "&#39;"),
        ("<script>alert('x')</script>", "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
        ("a\u{0}b\u{1B}c", "a\u{FFFD}b\u{FFFD}c"), ("tab\tnew\nline", "tab\tnew\nline"), ("émoji 🎉", "émoji 🎉"),
    ])
    func escapingReplacesMarkupCharacters(_ input: String, _ expected: String) {
        #expect(HTMLEscaping.escape(input) == expected)
    }

    /// A report whose every event-borne text (referer app, ref, host, error, a hosted link's slug) is hostile
    /// markup.
    static func hostileReport() throws -> Report {
        let hostile = [script, attribute, "'><svg onload=alert(1)>"]
        var events = generatedEvents(count: 300, seed: 5)
        events += hostile.enumerated().map { index, slug in
            MeasurementEvent(
                id: EventID("hostile-hit-\(index)"), name: "alstats_link_hit",
                fields: ["slug": slug, "status": "404", "crawler": "0"], timestamp: 1_774_137_600_000)
        }
        for index in events.indices {
            let value = hostile[index % hostile.count]
            events[index].fields[FieldName.ref] = value
            if events[index].name == EventName.navOut {
                events[index].fields[FieldName.sourceURLHost] = value
                if events[index].fields[FieldName.success] == "0" { events[index].fields[FieldName.error] = value }
            } else {
                events[index].fields[FieldName.refererAppName] = value
            }
        }
        let database = try ReportDatabase(events: events)
        return try ReportReader(store: database.store).report(for: ReportQuery())
    }

    @Test func hostileFieldsShowAsTextAndNeverAsMarkup() throws {
        let report = try Self.hostileReport()
        #expect(report.refererApps.contains { $0.name == Self.script })
        #expect(report.navigation.failureReasons.contains { $0.error == Self.attribute })
        #expect(report.links.contains { $0.slug == Self.script })
        let page = ReportFormat.html.render(report)
        #expect(!page.lowercased().contains("<script"))
        #expect(!page.contains("<img"))
        #expect(!page.contains("<svg onload"))
        #expect(!page.contains(" onerror=\""), "an injected attribute")
        #expect(page.contains("&lt;script&gt;window.__pwned=1&lt;/script&gt;"))
        #expect(page.contains("&quot;&gt;&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;"))
        #expect(page.contains("&#39;&gt;&lt;svg onload=alert(1)&gt;"))
    }

    @Test func everyChartHasItsTitleAxisLabelsLegendAndTable() throws {
        let page = ReportFormat.html.render(try ReportOutputTests.goldenReport())
        for id in HTMLRenderer.figureIDs {
            #expect(page.contains(#"class="chart"#) && page.contains("id=\"\(id)\" aria-labelledby=\"\(id)-caption\">"))
            #expect(page.contains("role=\"img\" aria-labelledby=\"\(id)-caption \(id)-svg-title\""))
            #expect(page.contains("<table id=\"\(id)-table\">"))
        }
        #expect(page.components(separatedBy: "<svg ").count - 1 == HTMLRenderer.figureIDs.count)
        for label in [
            "Events per day", "date (Europe/Paris)", ">events</text>", "arrivals (al_nav_in)",
            "returns (al_ref_back_out)",
            "Outbound navigations per day, by type", "app opened", "web fallback",
            "Outbound navigations by type",
            "Referer apps: arrivals and returns", ">referer app</text>", "return rate ",
            "Ref categories: arrivals, outbound and returns",
            "out success ", "Failure reasons of outbound navigations", ">error</text>",
        ] {
            #expect(page.contains(label), "\(label)")
        }
    }

    @Test func pageStatesWindowTimeZoneAndCompletenessAtTheTop() throws {
        let report = try ReportOutputTests.goldenReport()
        let page = ReportFormat.html.render(report)
        let header = try #require(page.components(separatedBy: "</header>").first)
        #expect(header.contains("<dd id=\"timezone\">Europe/Paris</dd>"))
        #expect(header.contains("<dd id=\"window\">All events</dd>"))
        #expect(header.contains("2 events dropped"))
        #expect(header.contains("<th scope=\"row\">buffer_full</th><td>2</td>"))
    }

    @Test func pageShowsTheNumbersOfTheJSONReport() throws {
        let report = try ReportOutputTests.goldenReport()
        let page = ReportFormat.html.render(report)
        #expect(page.contains("id=\"total-events\">\(ReportText.count(report.totals.events))</span>"))
        #expect(page.contains("id=\"total-nav-out\">\(ReportText.count(report.navigation.attempts))</span>"))
        for day in report.daily {
            #expect(
                page.contains(
                    "<th scope=\"row\">\(day.date)</th><td>\(day.navIn)</td><td>\(day.navOut)</td><td>\(day.refBackOut)</td>"
                ))
        }
        for app in report.refererApps {
            #expect(
                page.contains("<th scope=\"row\">\((app.name ?? "(none)").htmlEscaped)</th><td>\(app.arrivals)</td>"))
        }
    }

    @Test func anEmptyReportStillDrawsEveryFigure() throws {
        let database = try ReportDatabase(events: [])
        let page = ReportFormat.html.render(try ReportReader(store: database.store).report(for: ReportQuery()))
        #expect(page.components(separatedBy: "<svg ").count - 1 == HTMLRenderer.figureIDs.count)
        #expect(page.contains("No events in this window."))
        #expect(page.contains("id=\"total-events\">0</span>"))
    }

    @Test(arguments: [
        (0, 1, 1), (3, 1, 3), (4, 1, 4), (9, 5, 10), (57, 20, 60), (1_234, 500, 1_500), (10_000, 5_000, 10_000),
    ])
    func scalesEndOnARoundTop(_ maximum: Int, _ step: Int, _ top: Int) {
        let scale = Scale(maximum: maximum)
        #expect(scale.step == step)
        #expect(scale.top == top)
    }
}

/// The hostile report loaded in headless Chromium, when it is installed (.ci/browser checks more).
struct HTMLBrowserTests {
    static let chromium = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin")
        .split(separator: ":").map { "\($0)/chromium" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    // Under CI the tool is required: the test runs and fails without it instead of skipping.
    @Test(.enabled(if: chromium != nil || BuiltAlstats.isCI, "chromium is not installed"))
    func chromiumShowsHostileFieldsAsTextAndBuildsNoInjectedElement() throws {
        let page = ReportFormat.html.render(try HTMLReportTests.hostileReport())
        let temporary = TemporaryDatabase()
        let folder = temporary.folder
        let file = folder.appendingPathComponent("report.html")
        try page.write(to: file, atomically: true, encoding: .utf8)

        let result = try ProcessRunner.run(
            try #require(Self.chromium),
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--user-data-dir=\(folder.appendingPathComponent("profile").path)", "--dump-dom", file.absoluteString,
            ])
        let dom = result.output

        #expect(result.status == 0)
        #expect(dom.components(separatedBy: "<svg ").count - 1 == HTMLRenderer.figureIDs.count)
        #expect(dom.contains("&lt;script&gt;window.__pwned=1&lt;/script&gt;"), "the payload shows as text")
        #expect(!dom.contains("<script"), "no script element exists")
        #expect(!dom.contains("<img"), "no img element exists")
        #expect(!dom.contains("<svg onload"))
    }
}

/// The charts' time axis: days spaced as time is, a day without events at zero.
struct ChartTimeAxisTests {
    @Test func daysWithoutEventsAreOnTheAxisAtZeroAcrossAYearsEnd() throws {
        let dayMilliseconds: Int64 = 86_400_000
        let december30: Int64 = 1_767_052_800_000  // 2025-12-30T00:00:00Z
        let events = [0, 3].map { offset in
            MeasurementEvent(
                id: EventID("day-\(offset)"), name: EventName.navIn, fields: [FieldName.ref: "feed"],
                timestamp: december30 + Int64(offset) * dayMilliseconds + 3_600_000)
        }
        let report = try ReportReader(store: try ReportDatabase(events: events).store).report(for: ReportQuery())
        #expect(report.daily.map(\.date) == ["2025-12-30", "2026-01-02"], "the JSON keeps the days with events")
        let daily = try #require(HTMLRenderer().figures(report).first { $0.chart.id == "fig-daily" })
        #expect(daily.chart.categories == ["2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02"])
        #expect(daily.chart.series[0].values == [1, 0, 0, 1])
    }

    @Test func aSpanLongerThanTheAxisLimitKeepsOnlyTheDaysWithEvents() {
        let day = { (date: String) in
            Report.Day(
                date: date, navIn: 1, navOut: 0, refBackOut: 0, navOutSuccessRate: nil, navOutSucceeded: 0,
                navOutByType: [:])
        }
        #expect(Report.Day.everyDay(from: [day("2020-01-01"), day("2026-01-01")]).count == 2)
        #expect(
            Report.Day.everyDay(from: [day("2026-02-27"), day("2026-03-01")]).map(\.date)
                == ["2026-02-27", "2026-02-28", "2026-03-01"])
    }
}
