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
            try await client.execute(
                uri: "/api/links/invite", method: .put, headers: headers(key: ServerFixture.adminKey),
                body: ByteBuffer(string: #"{"slug":"invite","web":{"url":"https://example.com/i"}}"#)
            ) { #expect($0.status == .ok) }
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

    /// Every parameter of `/report` (and of a link's page) is read as `/api/report` reads it: one it cannot read is
    /// the API's status and message, on an HTML page of the dashboard. A link page of a slug that no link has and
    /// no hit named is 404.
    @Test func aParameterTheAPIRefusesIsAnErrorPageWithTheAPIsStatusAndMessage() async throws {
        let fixture = ServerFixture()
        try await fixture.application().test(.router) { client in
            let read = headers(key: ServerFixture.readKey)
            for bad in [
                "compare=bogus", "since=yesterday", "until=soon", "tz=Mars/Base", "top=-1", "period=fortnight",
                "period=7d&since=garbage", "compare=previous&since=2025-11-22&until=2025-11-21",
            ] {
                var message = ""
                try await client.execute(uri: "/api/report?\(bad)", method: .get, headers: read) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                    message = json(response)["error"]?.stringValue ?? ""
                }
                #expect(!message.isEmpty)
                for path in ["/report", "/report/links/invite"] {
                    try await client.execute(uri: "\(path)?\(bad)", method: .get, headers: read) { response in
                        #expect(response.status == .badRequest, "\(path)?\(bad)")
                        #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                        let page = String(buffer: response.body)
                        #expect(page.contains("<p id=\"error-message\">\(message.htmlEscaped)</p>"), "\(bad)")
                    }
                }
            }
            // A window the dashboard's default comparison cannot have (empty, or starting after now) is shown
            // without one, as `/api/report` shows it, and its script polls it without one.
            for window in ["since=2025-11-21&until=2025-11-21", "since=2999-01-01"] {
                try await client.execute(uri: "/report?\(window)", method: .get, headers: read) { response in
                    #expect(response.status == .ok, "\(window)")
                    #expect(String(buffer: response.body).contains("compare=none"), "\(window)")
                }
                try await client.execute(uri: "/api/report?\(window)", method: .get, headers: read) {
                    #expect($0.status == .ok, "\(window)")
                }
            }
            try await client.execute(uri: "/report/links/nope", method: .get, headers: read) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("no hosted link is named &#39;nope&#39;"))
            }
            // A slug that was asked for (a 404 hit) has a page, though no link is stored under it.
            try await client.execute(
                uri: "/v1/events", method: .post, headers: headers(),
                body: ByteBuffer(
                    string:
                        #"{"name":"alstats_link_hit","ts":\#(ServerFixture.now),"fields":{"slug":"old","status":"404","crawler":"0"}}"#
                )
            ) { #expect(json($0)["accepted"] == .int(1)) }
            try await client.execute(uri: "/report/links/old?period=all", method: .get, headers: read) {
                #expect($0.status == .ok)
            }
        }
    }
}

#endif
