#if Server

import EventServer
import EventStoreInterface
import EventStoreSQLite
import Foundation
import HostedLinks
import Hummingbird
import HummingbirdTesting
import Logging
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

/// A fresh database folder (TestSupport's ``ServerFolder``) and an application on it, with one key of each role and
/// a manual clock.
final class ServerFixture: Sendable {
    static let writeKey = "write-key-1"
    static let readKey = "read-key-1"
    static let adminKey = "admin-key-1"
    /// The clock's time: 2025-11-21T00:00:00Z.
    static let now = ServerFolder.now

    let storage = ServerFolder()
    let clock = ManualEventClock(milliseconds: ServerFixture.now)

    /// The database folder.
    var folder: URL { storage.folder }
    /// The database file.
    var path: String { storage.path }

    /// The application on this fixture's database; with `logger`, it logs there (else warnings only).
    func application(
        maximumQueuedEvents: Int = 100_000, logger: Logger? = nil,
        configure: (inout EventServerConfiguration) -> Void = { _ in }
    ) throws -> EventServerApplication {
        var configuration = EventServerConfiguration(
            databasePath: path,
            keys: AccessKeys(write: [Self.writeKey], read: [Self.readKey], admin: [Self.adminKey]))
        configuration.clock = clock
        configuration.maximumQueuedEvents = maximumQueuedEvents
        // A live test's client connects before the test's first request and keeps its connection between requests:
        // on a loaded host it may wait longer than the default deadlines before a head (10 s) or between requests
        // (a minute). The limits' own tests (alstatsTests/Serve/ServeLimitsTests) set theirs.
        configuration.limits.idleTimeout = .seconds(3_600)
        configuration.limits.headerTimeout = .seconds(3_600)
        configure(&configuration)
        var quiet = Logger(label: "test")
        quiet.logLevel = .warning
        return try buildApplication(configuration: configuration, logger: logger ?? quiet)
    }

    /// The stored events, by id.
    func storedEvents() throws -> [String: MeasurementEvent] { try storage.storedEvents() }

    /// The completeness counts of the database.
    func completeness() throws -> [String: [String: Int]] { try storage.completeness() }
}

/// Headers with `Authorization: Bearer key` and a content type.
func headers(
    key: String? = ServerFixture.writeKey, contentType: String? = "application/x-ndjson", encoding: String? = nil
) -> HTTPFields {
    var fields = HTTPFields()
    if let encoding { fields[.contentEncoding] = encoding }
    if let key { fields[.authorization] = "Bearer \(key)" }
    if let contentType { fields[.contentType] = contentType }
    return fields
}

/// The JSON object of a response body; an issue (and an empty object) when it is not one.
func json(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) -> JSONObject {
    let text = String(buffer: response.body)
    guard case .object(let object)? = try? JSONValue.parse(text) else {
        Issue.record("not a JSON object: \(text)", sourceLocation: sourceLocation)
        return JSONObject()
    }
    return object
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A hosted page without its own inline script (``HostedLinkPage/script``), for checks that no other script is in it.
func withoutOwnScript(_ page: String) -> String {
    page.replacingOccurrences(of: "<script>\(HostedLinkPage.script)</script>", with: "")
}

/// A hosted page with each click token (22 characters after `alstats_click=`) replaced by `TOKEN`: two people's
/// pages differ only there.
func maskingClicks(_ page: String) -> String {
    var parts = page.components(separatedBy: "alstats_click=")
    for index in parts.indices.dropFirst() { parts[index] = "TOKEN" + parts[index].dropFirst(22) }
    return parts.joined(separator: "alstats_click=")
}

#endif
