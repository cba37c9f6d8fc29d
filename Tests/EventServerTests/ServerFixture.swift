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
import Testing

/// A fresh database folder and an application on it, with one key of each role and a manual clock.
final class ServerFixture: Sendable {
    static let writeKey = "write-key-1"
    static let readKey = "read-key-1"
    static let adminKey = "admin-key-1"
    /// The clock's time: 2025-11-21T00:00:00Z.
    static let now: Int64 = 1_763_683_200_000

    let folder: URL
    let path: String
    let clock = ManualEventClock(milliseconds: ServerFixture.now)

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("alstats-serve-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("alstats.sqlite").path
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

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
        configure(&configuration)
        var quiet = Logger(label: "test")
        quiet.logLevel = .warning
        return try buildApplication(configuration: configuration, logger: logger ?? quiet)
    }

    /// The stored events, by id.
    func storedEvents() throws -> [String: MeasurementEvent] {
        let store = try SQLiteEventStore(path: path, options: .init(create: false))
        var events: [String: MeasurementEvent] = [:]
        try store.forEachEvent { events[$0.id.description] = $0 }
        return events
    }

    /// The completeness counts of the database.
    func completeness() throws -> [String: [String: Int]] {
        try SQLiteEventStore(path: path, options: .init(create: false)).completeness()
    }
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

/// An NDJSON line of one event.
func line(id: String?, name: String = "al_nav_out", ts: Int64 = ServerFixture.now, ref: String = "feed") -> String {
    let idPart = id.map { #""id":"\#($0)","# } ?? ""
    return #"{\#(idPart)"name":"\#(name)","ts":\#(ts),"fields":{"success":"1","type":"app","ref":"\#(ref)"}}"#
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
