import EventStoreSQLite
import Foundation
import MeasurementEvents

/// A fresh database folder for a run of the built `alstats serve`, and what the tests read back from it: the part
/// of EventServerTests' `ServerFixture` that does not build the application in the test process.
final class ServerFixture: Sendable {
    /// 2025-11-21T00:00:00Z, the time of the events ``line(id:name:ts:ref:)`` makes.
    static let now: Int64 = 1_763_683_200_000

    let folder: URL
    let path: String

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("alstats-serve-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("alstats.sqlite").path
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The stored events, by id.
    func storedEvents() throws -> [String: MeasurementEvent] {
        let store = try SQLiteEventStore(path: path, options: .init(create: false))
        var events: [String: MeasurementEvent] = [:]
        try store.forEachEvent { events[$0.id.description] = $0 }
        return events
    }
}

/// An NDJSON line of one event.
func line(id: String?, name: String = "al_nav_out", ts: Int64 = ServerFixture.now, ref: String = "feed") -> String {
    let idPart = id.map { #""id":"\#($0)","# } ?? ""
    return #"{\#(idPart)"name":"\#(name)","ts":\#(ts),"fields":{"success":"1","type":"app","ref":"\#(ref)"}}"#
}
