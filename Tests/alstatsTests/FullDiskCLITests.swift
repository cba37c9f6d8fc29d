import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// `alstats ingest` onto a full disk (a file-size limit on the process): exit 74, one clear line, the file intact.
struct FullDiskCLITests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func ingestOntoAFullDiskExitsWith74AndKeepsTheFileIntact() throws {
        let database = TemporaryDatabase()
        let first = sampleEvents(200, idPrefix: "first")
        try first.map(NDJSONCodec.line(for:)).joined(separator: "\n")
            .write(toFile: database.file("first.ndjson"), atomically: true, encoding: .utf8)
        try sampleEvents(30_000, idPrefix: "big").map(NDJSONCodec.line(for:)).joined(separator: "\n")
            .write(toFile: database.file("big.ndjson"), atomically: true, encoding: .utf8)
        #expect(try BuiltAlstats.run(["ingest", "first.ndjson"], in: database.folder).status == 0)

        // A file-size limit on the process stands in for a full disk (no mount needed): writes past it fail
        // with EFBIG (SIGXFSZ ignored), as on a quota.
        let kilobytes = TemporaryDatabase.bytes(database.path).count / 1024 + 256
        let script = "trap '' XFSZ; ulimit -f \(kilobytes); exec \"$0\" ingest big.ndjson"
        let full = try ProcessRunner.run("/bin/bash", ["-c", script, BuiltAlstats.require()], in: database.folder)
        #expect(full.status == 74)
        #expect(full.errors.contains("full") && full.errors.split(separator: "\n").count == 1, "\(full.errors)")

        let check = try SQLiteConnection(path: database.path, create: false)
        #expect(try check.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try check.scalarInt("SELECT count(*) FROM events WHERE id LIKE 'first-%'") == 200)
        let retry = try BuiltAlstats.run(["ingest", "big.ndjson"], in: database.folder)
        #expect(retry.status == 0, "\(retry.errors)")
        #expect(try check.scalarInt("SELECT count(*) FROM events") == 30_200)
    }
}
