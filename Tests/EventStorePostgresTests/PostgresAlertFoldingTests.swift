#if Server

import EventReport
import EventStoreSQLite
import MeasurementEvents
import PostgresTestSupport
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// One alert per cause on both backends: the same events in SQLite and in PostgreSQL give the same compared
/// report, whose one cause explains the slices it dragged down.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresAlertFoldingTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_774_137_600_000

    /// Two weeks of outbound navigations: video.example.org (refs feed and share) at 96% in the first and 33% in
    /// the second, news.example (the same refs) at 90% in both.
    static func events() -> [MeasurementEvent] {
        var events: [MeasurementEvent] = []
        for (week, videoSucceeds) in [(0, 24), (1, 8)] {
            for index in 0..<500 {
                let timestamp = start + Int64(week) * 7 * day + Int64(index) * 1_200_000
                let ref = index % 2 == 0 ? "feed" : "share"
                let video = index % 25 < videoSucceeds
                let news = index % 10 != 0
                for (host, succeeded) in [("video.example.org", video), ("news.example", news)] {
                    var fields = ["sourceURLHost": host, "ref": ref, "success": succeeded ? "1" : "0"]
                    fields["type"] = succeeded ? "app" : "fail"
                    if !succeeded { fields["error"] = host == "news.example" ? "timeout" : "open_failed" }
                    events.append(MeasurementEvent(name: EventName.navOut, fields: fields, timestamp: timestamp))
                }
            }
        }
        return events
    }

    @Test func bothBackendsFoldTheSameAlertsUnderTheBrokenHost() async throws {
        let events = Self.events()
        let folder = TemporaryDatabase()
        let sqlite = try SQLiteEventStore(path: folder.path)
        try sqlite.write(events)
        let query = ReportQuery(since: Self.start + 7 * Self.day, until: Self.start + 14 * Self.day)
        let expected = try await ReportReader(store: sqlite).readReport(for: query, comparison: .previous)
        let cause = try #require(expected.alerts?.first)
        #expect(expected.alerts?.count == 1)
        #expect(cause.dimension == .sourceHost && cause.value == "video.example.org")
        #expect(cause.explains.map(\.dimension) == [.all, .ref, .ref])
        #expect(Set(cause.explains.compactMap(\.value)) == ["feed", "share"])
        try await PostgresTestDatabase.with { url in
            let postgres = try await PostgresEventStore.open(url: url)
            _ = try await postgres.writeBatches([events])
            let actual = try await postgres.readReport(for: query, comparison: .previous)
            #expect(actual.alerts == expected.alerts)
            #expect(ReportFormat.json.render(actual) == ReportFormat.json.render(expected))
            await postgres.close()
        }
    }
}

#endif
