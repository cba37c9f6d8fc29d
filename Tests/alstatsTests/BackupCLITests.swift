import Foundation
import MeasurementEvents
import TestSupport
import Testing

#if Server
import PostgresTestSupport
#endif

/// `alstats backup` then `alstats restore` on the demo's database: the copy's report is the original's, its
/// hosted links' arrivals (which need the public URL) and its losses (completeness) included, into SQLite and, with a
/// server, into PostgreSQL; restoring again changes nothing. `export` and `ingest` alone carry only the events.
@Suite(.serialized)
struct BackupCLITests {
    /// The demo's database with one line refused over a field limit (a loss in completeness) and a device's loss
    /// record (`alstats_loss`, counted as `device:buffer_full` when stored: a restore that counted it again from the
    /// backup's completeness doubled it).
    static func demoDatabase(in folder: TemporaryDatabase) throws -> String {
        let demo = try BuiltAlstats.run(
            ["demo", "--in-process", "--events", "3000", "--database", "demo.sqlite"], in: folder.folder)
        #expect(demo.status == 0, "\(demo.errors)")
        let fields = (0..<300).map { "\"k\($0)\":\"v\"" }.joined(separator: ",")
        let loss = #"{"name":"alstats_loss","ts":1762387200000,"fields":{"reason":"buffer_full","count":"7"}}"#
        try "{\"name\":\"wide\",\"ts\":1762387200000,\"fields\":{\(fields)}}\n\(loss)\n".write(
            toFile: folder.file("wide.ndjson"), atomically: true, encoding: .utf8)
        let ingest = try BuiltAlstats.run(["ingest", "wide.ndjson", "--database", "demo.sqlite"], in: folder.folder)
        #expect(ingest.status == 65, "\(ingest.errors)")
        return folder.file("demo.sqlite")
    }

    static func report(_ database: String, in folder: TemporaryDatabase) throws -> String {
        let report = try BuiltAlstats.run(["report", "--format", "json", "--database", database], in: folder.folder)
        #expect(report.status == 0, "\(report.errors)")
        return report.output
    }

    /// The arrivals of the hosted link `invite` in a report's JSON.
    static func arrivals(_ report: String) throws -> Int64 {
        guard case .array(let links)? = try JSONValue.parse(report)["links"],
            case .int(let arrivals)? = links.first(where: { $0["slug"] == "invite" })?["arrivals"]
        else { return -1 }
        return arrivals
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func aRestoredBackupOfTheDemoGivesTheSameReport() throws {
        let folder = TemporaryDatabase()
        let original = try Self.report(try Self.demoDatabase(in: folder), in: folder)
        #expect(original.contains(#""too_many_fields":1"#))
        #expect(original.contains(#""device:buffer_full":7"#), "\(original)")
        #expect(try Self.arrivals(original) > 0, "the demo's link invite has arrivals")

        let backup = try BuiltAlstats.run(["backup", "--database", "demo.sqlite", "copy"], in: folder.folder)
        #expect(backup.status == 0, "\(backup.errors)")
        #expect(backup.output.contains("3 links, 1 public URL and 2 completeness counts into copy"), "\(backup.output)")
        for _ in 0..<2 {
            let restore = try BuiltAlstats.run(["restore", "--database", "copy.sqlite", "copy"], in: folder.folder)
            #expect(restore.status == 0, "\(restore.errors)")
            #expect(try Self.report("copy.sqlite", in: folder) == original)
        }
        let again = try BuiltAlstats.run(["backup", "--database", "demo.sqlite", "copy"], in: folder.folder)
        #expect(again.status == 64, "a folder that is not empty is refused")
        let missing = try BuiltAlstats.run(["backup", "--database", "missing.sqlite", "never"], in: folder.folder)
        #expect(missing.status == 66, "\(missing.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("never")), "no folder for a database not read")

        // The events alone: the copy counts no arrival, having no public URL.
        let export = try BuiltAlstats.run(["export", "--database", "demo.sqlite"], in: folder.folder)
        try export.output.write(toFile: folder.file("events.ndjson"), atomically: true, encoding: .utf8)
        _ = try BuiltAlstats.run(["ingest", "--database", "events.sqlite", "events.ndjson"], in: folder.folder)
        #expect(try Self.arrivals(try Self.report("events.sqlite", in: folder)) == 0)
    }

    #if Server
    @Test(.enabled(if: PostgresTestDatabase.shouldRun && BuiltAlstats.shouldRun))
    func aBackupOfSQLiteRestoredIntoPostgreSQLGivesTheSameReport() async throws {
        try await PostgresTestDatabase.with { url in
            let folder = TemporaryDatabase()
            let original = try Self.report(try Self.demoDatabase(in: folder), in: folder)
            _ = try BuiltAlstats.run(["backup", "--database", "demo.sqlite", "copy"], in: folder.folder)
            let restore = try BuiltAlstats.run(["restore", "--database", url, "copy"], in: folder.folder)
            #expect(restore.status == 0, "\(restore.errors)")
            #expect(try Self.report(url, in: folder) == original)
        }
    }
    #endif
}
