#if Server

import EventStoreInterface
import EventStoreSQLite
import Foundation
import MeasurementEvents
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The real collector: TestSupport's ``ServeProcess`` (the built `alstats serve` on a loopback port) with the
/// write key `wk` and the read key `rk`, and what the upload tests ask of it: the stored events, the duplicates.
/// Stopped with SIGTERM when released.
final class ServeCollector: Sendable {
    /// Whether the tests that run it run (TestSupport's rule: a missing binary fails under CI).
    static var built: Bool { BuiltAlstats.shouldRun }

    let server: ServeProcess

    /// Starts the server and waits for its "listening on" line.
    init(databasePath: String, writeKey: String = "wk") throws {
        server = try ServeProcess(database: databasePath, writeKey: writeKey, readKey: "rk")
    }

    /// The port it listens on.
    var port: UInt16 { UInt16(server.port) }

    /// Its database.
    var databasePath: String { server.databasePath }

    /// The collector's base URL.
    var url: URL { server.url }

    /// Stops the server (SIGTERM: it finishes the requests in flight) and waits for it.
    func stop() {
        server.stop(with: SIGTERM)
    }

    /// The ids of the stored events, read from the collector's database while it runs.
    func storedIDs() throws -> [String] {
        var ids: [String] = []
        try reader().forEachEvent { ids.append($0.id.description) }
        return ids
    }

    /// The stored events.
    func count() throws -> Int { try reader().count() }

    /// The collector's database, opened without the integrity check (it is polled while the server writes).
    private func reader() throws -> SQLiteEventStore {
        try SQLiteEventStore(
            path: databasePath, options: SQLiteEventStore.Options(create: false, integrityCheckLimit: 0))
    }

    /// Events the collector acknowledged as duplicates, from its `/metrics`.
    var duplicates: Int {
        guard let fd = Wire.connect(port: port) else { return -1 }
        defer { Wire.hangUp(fd) }
        let request =
            "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer rk\r\nConnection: close\r\n\r\n"
        Wire.write(fd, Data(request.utf8))
        let text = String(decoding: Wire.readAll(fd), as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix("alstats_events_duplicate_total") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }
}

#endif
