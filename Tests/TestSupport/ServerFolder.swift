import EventStoreSQLite
import Foundation
import MeasurementEvents

/// A fresh folder for a server's SQLite database (removed when the folder goes), and what the tests read back from
/// it: for an application built in the test process (EventServerTests' `ServerFixture`) and for a run of the built
/// `alstats serve` (alstatsTests).
public final class ServerFolder: Sendable {
    /// 2025-11-21T00:00:00Z, the time of the events ``eventLine(id:name:ts:ref:)`` makes and of the tests' clocks.
    public static let now: Int64 = 1_763_683_200_000

    /// The folder.
    public let folder: URL
    /// The database file in it.
    public let path: String

    /// A new, empty folder.
    public init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("alstats-serve-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("alstats.sqlite").path
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The stored events, by id.
    public func storedEvents() throws -> [String: MeasurementEvent] {
        let store = try SQLiteEventStore(path: path, options: .init(create: false))
        var events: [String: MeasurementEvent] = [:]
        try store.forEachEvent { events[$0.id.description] = $0 }
        return events
    }

    /// The completeness counts of the database.
    public func completeness() throws -> [String: [String: Int]] {
        try SQLiteEventStore(path: path, options: .init(create: false)).completeness()
    }
}

/// An NDJSON line of one event (an `al_nav_out` of `ref` at ``ServerFolder/now`` by default).
public func eventLine(id: String?, name: String = "al_nav_out", ts: Int64 = ServerFolder.now, ref: String = "feed")
    -> String
{
    let idPart = id.map { #""id":"\#($0)","# } ?? ""
    return #"{\#(idPart)"name":"\#(name)","ts":\#(ts),"fields":{"success":"1","type":"app","ref":"\#(ref)"}}"#
}
