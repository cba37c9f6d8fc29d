#if Server

import EventReport
import EventServer
import EventStoreInterface
import Foundation
import Hummingbird
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

/// `/report` is the dashboard of the view its URL says; `/api/report?period=` is the same window; a form's `+`
/// is a space; `/report/links/{slug}` is one hosted link's page.
@Suite struct DashboardRouteTests {
    @Test func theDashboardShowsTheReportOfItsPeriodAndFilters() async throws {
        let fixture = ServerFixture()
        let day: Int64 = 86_400_000
        // One event a day over the 40 days before the fixture's clock; the refs carry a space.
        let lines = (1...40).map { index in
            eventLine(
                id: "d\(index)", ts: ServerFixture.now - Int64(index) * day + 1_000,
                ref: index <= 7 ? "top story" : "feed")
        }
        try await fixture.application().test(.router) { client in
            let read = headers(key: ServerFixture.readKey)
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(),
                body: ByteBuffer(string: lines.joined(separator: "\n"))
            ) { #expect(json($0)["accepted"] == .int(40)) }
            func events(_ query: String) async throws -> JSONValue? {
                try await client.execute(uri: "/api/report?\(query)", method: .get, headers: read) {
                    json($0)["totals"]?["events"]
                }
            }
            #expect(try await events("period=7d") == .int(7))
            #expect(try await events("period=30d") == .int(30))
            #expect(try await events("period=all") == .int(40))
            #expect(try await events("") == .int(40), "the API's default stays every event")
            // A form sends a space as '+'; a link as %20.
            #expect(try await events("period=all&ref=top+story") == .int(7))
            #expect(try await events("period=all&ref=top%20story") == .int(7))
            try await client.execute(uri: "/report", method: .get, headers: read) { response in
                let page = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(page.contains("<span class=\"number\" id=\"total-events\">7</span>"), "7 days by default")
                #expect(page.contains("<script nonce=\""))
            }
            try await client.execute(uri: "/report?period=30d&ref=feed&part=main", method: .get, headers: read) {
                let main = String(buffer: $0.body)
                #expect(main.hasPrefix("<main id=\"dashboard\""))
                #expect(main.contains("<span class=\"number\" id=\"total-events\">23</span>"))
            }
            try await client.execute(uri: "/report/links/invite?period=all", method: .get, headers: read) {
                #expect($0.status == .ok)
                let page = String(buffer: $0.body)
                #expect(page.contains("<title>alstats · invite</title>"))
                // Its script polls the report of the link alone, over the page's period.
                #expect(page.contains(#"data-api="/api/report?period=all&amp;link=invite&amp;compare=previous""#))
            }
            for bad in ["/report?period=fortnight", "/api/report?period=fortnight", "/report?tz=Mars/Base"] {
                try await client.execute(uri: bad, method: .get, headers: read) { #expect($0.status == .badRequest) }
            }
            try await client.execute(uri: "/report", method: .get) { #expect($0.status == .unauthorized) }
        }
    }
}

#endif
