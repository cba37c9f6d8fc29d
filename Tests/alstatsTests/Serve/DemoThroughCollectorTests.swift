#if Server

import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// `alstats demo` through the uploader and an in-process collector (its default), against `--in-process` (bus →
/// SQLite sink), on the built binary. Here and not in EventReportTests: the core-only build, which has no
/// server and always takes the in-process path, leaves this target out.
@Suite(.serialized) struct DemoThroughCollectorTests {
    static let demo = ["demo", "--events", "3000", "--seed", "11", "--format", "json"]

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theDemoThroughTheCollectorStoresAndReportsExactlyWhatTheInProcessPathDoes() throws {
        let http = TemporaryDatabase()
        let direct = TemporaryDatabase()
        let viaHTTP = try BuiltAlstats.run(Self.demo + ["--database", http.path])
        #expect(viaHTTP.status == 0, "\(viaHTTP.errors)")
        let inProcess = try BuiltAlstats.run(Self.demo + ["--database", direct.path, "--in-process"])
        #expect(inProcess.status == 0, "\(inProcess.errors)")

        #expect(
            viaHTTP.errors.range(
                of: #"3000 events through the bus and http://127\.0\.0\.1:[0-9]+/v1/events into "#,
                options: .regularExpression) != nil, "\(viaHTTP.errors)")
        #expect(viaHTTP.errors.contains("(3000 uploaded, 0 acknowledged as duplicates, 0 dropped)"))
        #expect(!inProcess.errors.contains("/v1/events"), "--in-process does not go through HTTP")

        #expect(viaHTTP.output == inProcess.output, "the same report JSON")
        #expect(try JSONValue.parse(viaHTTP.output)["totals"]?["events"] == .int(3_000))
        let exported = try BuiltAlstats.run(["export", "--database", http.path])
        let expected = try BuiltAlstats.run(["export", "--database", direct.path])
        #expect(exported.status == 0 && expected.status == 0)
        #expect(exported.output.split(separator: "\n").count == 3_000)
        #expect(exported.output == expected.output, "the same events, ids included, byte for byte")

        // The outbox is a temporary file, and the access tokens of the legacy links never reach the database.
        let stray = try FileManager.default.contentsOfDirectory(atPath: http.folder.path)
        #expect(stray.allSatisfy { $0.hasPrefix("alstats.sqlite") }, "\(stray)")
        for suffix in ["", "-wal"] {
            #expect(TemporaryDatabase.bytes(http.path + suffix).range(of: Data("EAAB".utf8)) == nil)
        }
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func aSecondDemoThroughTheCollectorIntoTheSameDatabaseStoresNothingNew() throws {
        let database = TemporaryDatabase()
        let first = try BuiltAlstats.run(Self.demo + ["--database", database.path])
        #expect(first.status == 0, "\(first.errors)")
        let before = try BuiltAlstats.run(["export", "--database", database.path]).output

        let second = try BuiltAlstats.run(Self.demo + ["--database", database.path])
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.errors.contains("(0 uploaded, 3000 acknowledged as duplicates, 0 dropped)"), "\(second.errors)")
        #expect(second.output == first.output, "the report is unchanged")
        #expect(try BuiltAlstats.run(["export", "--database", database.path]).output == before)
    }
}

#endif
