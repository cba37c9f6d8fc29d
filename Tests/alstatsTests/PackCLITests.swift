import EventStoreSQLite
import Foundation
import SQLiteSupport
import TestSupport
import Testing

/// `alstats ingest --pack` and `alstats pack` as a user runs them: a packed file exports what an unpacked one
/// does, byte for byte, in fewer bytes; too few events or a PostgreSQL database are refused with their status.
/// Serialized: a binary copied while another test forks cannot be executed ("text file busy").
@Suite(
    .serialized, .enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"),
    .enabled(if: SQLiteEventStore.canPack, "this build has no Zstandard"))
struct PackCLITests {
    /// `count` App Links events with long, unique URLs and extra fields, one NDJSON line each.
    static func lines(_ count: Int) -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<count).map { index in
            let item = UInt64.random(in: 0...UInt64.max, using: &random)
            let ts = 1_763_683_200_000 + index * 1_000
            if index.isMultiple(of: 2) {
                return #"{"id":"\#(UUID().uuidString.lowercased())","name":"al_nav_in","ts":\#(ts),"fields":{"#
                    + #""inputURL":"readly://article/\#(item)?al_applink_data=%7B%22target_url%22%3A%22https","#
                    + #""targetURL":"https://www.recipes.example/p/\#(item)?ref=feed&sid=\#(item % 977)","#
                    + #""refererAppName":"Facebook","ref":"feed","sessionId":"\#(String(item, radix: 36))"}}"#
            }
            return #"{"id":"\#(UUID().uuidString.lowercased())","name":"al_nav_out","ts":\#(ts),"fields":{"#
                + #""outputURL":"readly://article/\#(item)","sourceURL":"https://news.example.org/a/\#(item)","#
                + #""success":"\#(index % 4 == 3 ? 0 : 1)","type":"app","latencyMs":"\#(item % 5_000)"}}"#
        }.joined(separator: "\n") + "\n"
    }

    static func bytes(_ path: String) -> Int {
        [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }

    @Test func anIngestPacksByDefaultAndAPackedFileExportsWhatAPlainOneDoes() throws {
        let database = TemporaryDatabase()
        try Self.lines(6_000).write(toFile: database.file("in.ndjson"), atomically: true, encoding: .utf8)
        let packed = try BuiltAlstats.run(["ingest", "--database", "packed.sqlite", "in.ndjson"], in: database.folder)
        #expect(packed.status == 0, "\(packed.errors)")
        let plain = try BuiltAlstats.run(
            ["ingest", "--no-pack", "--database", "plain.sqlite", "in.ndjson"], in: database.folder)
        #expect(plain.status == 0, "\(plain.errors)")
        let plainBytes = Self.bytes(database.file("plain.sqlite"))
        let packedRows = "SELECT count(*) FROM events WHERE packed IS NOT NULL"
        #expect(
            try SQLiteConnection(path: database.file("packed.sqlite"), create: false).scalarInt(packedRows) == 6_000)
        #expect(try SQLiteConnection(path: database.file("plain.sqlite"), create: false).scalarInt(packedRows) == 0)
        let export = try BuiltAlstats.run(["export", "--database", "plain.sqlite"], in: database.folder)
        #expect(export.status == 0 && export.output.split(separator: "\n").count == 6_000)
        #expect(
            try BuiltAlstats.run(["export", "--database", "packed.sqlite"], in: database.folder).output == export.output
        )

        let failures = [
            "query", "recent_failures", "--database", "plain.sqlite", "--format", "csv", "--param", "limit=50",
        ]
        let unpackedFailures = try BuiltAlstats.run(failures, in: database.folder)
        #expect(unpackedFailures.output.contains("readly://article/"), "\(unpackedFailures.errors)")
        let pack = try BuiltAlstats.run(["pack", "--database", "plain.sqlite"], in: database.folder)
        #expect(pack.status == 0, "\(pack.errors)")
        #expect(pack.output.hasPrefix("packed plain.sqlite: \(plainBytes) → "), "\(pack.output)")
        #expect(Self.bytes(database.file("plain.sqlite")) < plainBytes * 3 / 4)
        #expect(
            try BuiltAlstats.run(["export", "--database", "plain.sqlite"], in: database.folder).output == export.output)
        // The views read the packed rows.
        #expect(try BuiltAlstats.run(failures, in: database.folder).output == unpackedFailures.output)
    }

    @Test func tooFewEventsOrAPostgreSQLDatabaseAreRefused() throws {
        let database = TemporaryDatabase()
        try Self.lines(100).write(toFile: database.file("in.ndjson"), atomically: true, encoding: .utf8)
        #expect(try BuiltAlstats.run(["ingest", "in.ndjson"], in: database.folder).status == 0)
        let few = try BuiltAlstats.run(["pack"], in: database.folder)
        #expect(few.status == 65 && few.errors.contains("nothing packed"), "\(few.errors)")
        let postgres = try BuiltAlstats.run(
            ["ingest", "--no-pack", "--database", "postgres://alstats@127.0.0.1:1/alstats", "in.ndjson"],
            in: database.folder)
        #expect(
            postgres.status == 64 && postgres.errors.contains("--no-pack and --pack are for SQLite files"),
            "\(postgres.errors)")
    }
}
