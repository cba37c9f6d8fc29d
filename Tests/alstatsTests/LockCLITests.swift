import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// `alstats ingest` into a database another connection holds: exit 74 after the busy timeout, one clear line,
/// nothing lost, and a retry succeeds.
struct LockCLITests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func ingestIntoALockedDatabaseExitsWith74AndARetrySucceeds() throws {
        let database = TemporaryDatabase()
        try HostileFile.makeValidDatabase(database.path)
        let lines = sampleEvents(50, idPrefix: "cli").map(NDJSONCodec.line(for:)).joined(separator: "\n")
        try lines.write(toFile: database.file("in.ndjson"), atomically: true, encoding: .utf8)
        let other = try SQLiteConnection(path: database.path, create: false)
        try other.execute("BEGIN IMMEDIATE")
        // The CLI waits its default busy timeout (5 s) before it gives up.
        let blocked = try BuiltAlstats.run(["ingest", "in.ndjson"], in: database.folder)
        #expect(blocked.status == 74)
        #expect(blocked.errors.contains("locked by another writer"))
        #expect(blocked.errors.split(separator: "\n").count == 1)
        try other.execute("ROLLBACK")
        #expect(try other.scalarInt("SELECT count(*) FROM events") == 600)
        let retry = try BuiltAlstats.run(["ingest", "in.ndjson"], in: database.folder)
        #expect(retry.status == 0, "\(retry.errors)")
        #expect(try other.scalarInt("SELECT count(*) FROM events") == 650)
    }
}
