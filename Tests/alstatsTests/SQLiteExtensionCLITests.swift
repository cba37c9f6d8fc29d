// Not under ThreadSanitizer (.ci/run): an instrumented extension needs the TSan runtime, which the stock `sqlite3`
// and Python do not have, so it would not load in them.
#if !ALSTATS_TSAN
import Foundation
import TestSupport
import Testing

/// A database written with the default settings packs its long fields; the stock `sqlite3` shell and Debian's
/// Python read every view and every bundled query of it once they load the AlstatsSQLite extension, and without
/// it the rollups and the plain columns still read while a view says which function it lacks (docs/sql.md).
@Suite(.serialized)
struct SQLiteExtensionCLITests {
    static let sqlite3 = "/usr/bin/sqlite3"
    static let python3 = "/usr/bin/python3"

    /// A database of the demo's 6,000 events written with the default settings, in `folder`.
    static func packedDatabase() throws -> TemporaryDatabase {
        let folder = TemporaryDatabase()
        let demo = try BuiltAlstats.run(
            ["demo", "--in-process", "--events", "6000", "--seed", "3", "--database", folder.path])
        #expect(demo.status == 0, "\(demo.errors)")
        return folder
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite3) || BuiltAlstats.isCI))
    func everyViewAndBundledQueryRunsInTheSqlite3ShellWithTheExtension() throws {
        let folder = try Self.packedDatabase()
        let load = ".load \(try BuiltAlstats.sqliteExtension())"
        let packed = try ProcessRunner.run(
            Self.sqlite3, [folder.path, "SELECT count(*) > 4000 FROM events WHERE packed IS NOT NULL"])
        #expect(packed.output == "1\n", "a database of the default settings is packed: \(packed.errors)")
        for view in ["nav_in", "nav_out", "ref_back_out", "event_field", "link_event"] {
            let result = try ProcessRunner.run(
                Self.sqlite3, ["-bail", "-cmd", load, folder.path, "SELECT * FROM \(view)"])
            #expect(result.status == 0 && result.errors.isEmpty, "\(view): \(result.errors)")
            #expect(!result.output.isEmpty, "\(view)")
        }
        let urls = try ProcessRunner.run(
            Self.sqlite3, ["-cmd", load, folder.path, "SELECT count(target_url) > 1000 FROM nav_in"])
        #expect(urls.output == "1\n", "the long fields read through the extension: \(urls.errors)")
        let queries = try FileManager.default.contentsOfDirectory(atPath: Repository.path("Queries")).filter {
            $0.hasSuffix(".sql")
        }
        #expect(queries.count >= 11)
        for query in queries {
            let sql = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Queries/\(query)")))
            let result = try ProcessRunner.run(Self.sqlite3, ["-bail", "-cmd", load, folder.path], input: sql)
            #expect(result.status == 0 && result.errors.isEmpty, "\(query): \(result.errors)")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite3) || BuiltAlstats.isCI))
    func withoutTheExtensionTheRollupsRead_AndAViewNamesWhatItLacks() throws {
        let folder = try Self.packedDatabase()
        let rollups = try Data(contentsOf: URL(fileURLWithPath: Repository.path("Queries/failure_reasons.sql")))
        let plain = try ProcessRunner.run(Self.sqlite3, ["-bail", folder.path], input: rollups)
        #expect(plain.status == 0 && !plain.output.isEmpty, "\(plain.errors)")
        let view = try ProcessRunner.run(Self.sqlite3, [folder.path, "SELECT count(*) FROM nav_out"])
        #expect(view.status != 0 && view.errors.contains("no such function: alstats_field"), "\(view.errors)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python3) || BuiltAlstats.isCI))
    func debiansPythonReadsThePackedFieldsWithTheExtension() throws {
        let folder = try Self.packedDatabase()
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.enable_load_extension(True)
            db.load_extension(sys.argv[2])
            print(db.execute("SELECT count(source_url) > 1000 FROM nav_out").fetchone()[0])
            """
        let result = try ProcessRunner.run(
            Self.python3, ["-c", script, folder.path, try BuiltAlstats.sqliteExtension()])
        #expect(result.status == 0 && result.output == "1\n", "\(result.errors)")
    }
}
#endif
