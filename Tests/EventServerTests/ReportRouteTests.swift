#if Server

import EventReport
import EventServer
import EventStoreInterface
import EventStoreSQLite
import Foundation
import Hummingbird
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

@Suite struct ReportRouteTests {
    @Test func theReportOverHTTPIsTheReportOfTheStoreWithEveryFilter() async throws {
        let fixture = ServerFixture()
        var lines: [String] = []
        for index in 0..<40 {
            let name = index % 2 == 0 ? "al_nav_in" : "al_nav_out"
            let ts = ServerFixture.now + Int64(index) * 3_600_000
            lines.append(eventLine(id: "r\(index)", name: name, ts: ts, ref: index % 3 == 0 ? "feed" : "ad"))
        }
        let body = ByteBuffer(string: lines.joined(separator: "\n"))
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(), body: body
            ) { #expect(json($0)["accepted"] == .int(40)) }
            let store = try SQLiteEventStore(path: fixture.path, options: .init(create: false))
            let reader = ReportReader(store: store)
            let zone = try #require(ReportTimeZone("Europe/Paris"))
            let cases: [(String, ReportQuery)] = [
                ("", ReportQuery()),
                (
                    "?since=2025-11-21&until=2025-11-22T06:00:00Z&ref=feed&tz=Europe/Paris&top=1",
                    ReportQuery(
                        since: zone.milliseconds(of: "2025-11-21"),
                        until: zone.milliseconds(of: "2025-11-22T06:00:00Z"),
                        ref: "feed", timeZone: zone, top: 1)
                ),
                ("?referer_app=None", ReportQuery(refererApp: "None")),
                (
                    "?source_host=none.example&link=invite&ref=feed",
                    ReportQuery(ref: "feed", sourceHost: "none.example", link: "invite")
                ),
            ]
            for (parameters, query) in cases {
                let expected = ReportFormat.json.render(try await reader.readReport(for: query))
                try await client.execute(
                    uri: "/api/report\(parameters)", method: .get, headers: headers(key: ServerFixture.readKey)
                ) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == expected)
                }
            }
            try await client.execute(
                uri: "/report?tz=%2B05:30", method: .get, headers: headers(key: ServerFixture.readKey)
            ) {
                #expect($0.status == .ok)
                #expect($0.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(String(buffer: $0.body).contains("<html"))
            }
            let compared = try await reader.readReport(
                for: ReportQuery(since: ServerFixture.now, until: ServerFixture.now + 86_400_000, ref: "feed"),
                comparison: .previous)
            try await client.execute(
                uri: "/api/report?compare=previous&since=2025-11-21&until=2025-11-22&ref=feed", method: .get,
                headers: headers(key: ServerFixture.readKey)
            ) { #expect(String(buffer: $0.body) == ReportFormat.json.render(compared)) }
        }
    }

    @Test(arguments: [
        "?tz=Mars/Base", "?since=yesterday", "?top=-1", "?compare=last",
        "?compare=previous&since=2025-11-22&until=2025-11-21", "?since=2025-11-22&until=2025-11-21",
        // Times no RFC 3339 text can carry: before the year 0001, given or as the window compared with.
        "?since=0000-01-01T00:00:00%2B01:00", "?compare=previous&since=0001-01-01&until=0001-01-02",
        "?compare=previous&since=2025-01-01&until=9999-12-31T23:59:59.999Z",
        // A NUL no stored value holds, which PostgreSQL refused with a 500.
        "?ref=a%00", "?referer_app=%00", "?source_host=%00", "?link=%00",
    ])
    func aParameterThatIsNotValidIs400(_ query: String) async throws {
        try await ServerFixture().application().test(.router) { client in
            try await client.execute(
                uri: "/api/report\(query)", method: .get, headers: headers(key: ServerFixture.readKey)
            ) { #expect($0.status == .badRequest) }
        }
    }

    /// Lines refused on receipt count on the UTC day they arrived: the report of that day shows them under the
    /// receipt's codes, the report of another window does not, and a filter says it cannot apply to them.
    @Test func rejectedLinesShowInTheWindowOfTheDayTheyArrivedOnly() async throws {
        let fixture = ServerFixture()
        let today = EventTime.utcDayStart(of: SystemEventClock().nowMilliseconds())
        let yesterday = String(EventTime.rfc3339(milliseconds: today - 86_400_000).prefix(10))
        let afterTomorrow = String(EventTime.rfc3339(milliseconds: today + 2 * 86_400_000).prefix(10))
        try await fixture.application().test(.router) { client in
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(),
                body: ByteBuffer(string: "not json\n{\"ts\":1763683200000}\n" + eventLine(id: "kept"))
            ) { #expect(json($0)["rejected"] == .int(2)) }
            func completeness(_ parameters: String) async throws -> JSONValue? {
                var answer: JSONValue?
                try await client.execute(
                    uri: "/api/report?\(parameters)", method: .get, headers: headers(key: ServerFixture.readKey)
                ) { answer = json($0)["completeness"] }
                return answer
            }
            let around = "since=\(yesterday)&until=\(afterTomorrow)"
            let received = try await completeness(around)
            #expect(received?["rejected"] == .int(2))
            #expect(
                received?["by_reason"]
                    == .object(["invalid_event:bad_json": .int(1), "invalid_event:missing_name": .int(1)]))
            #expect(received?["not_filtered_by"] == .array([]))
            let before = try await completeness("since=2020-01-01&until=2020-01-02")
            #expect(before?["rejected"] == .int(0))
            #expect(before?["by_reason"] == .object([:]))
            let filtered = try await completeness(around + "&ref=feed")
            #expect(filtered?["rejected"] == .int(2))
            #expect(filtered?["not_filtered_by"] == .array([.string("ref")]))
        }
    }
}

#endif
