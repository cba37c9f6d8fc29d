import Foundation
import TestSupport
import Testing

/// `alstats ingest`, `report`, `migrate` and `push` on files they must not use: each is refused with one clear line
/// on stderr and exit status 74 (the file exists, so it is not 66's "missing input"; it cannot be used as a
/// database, which docs/cli.md calls an I/O or database error), and the file keeps every byte.
struct HostileFileCLITests {
    static let commands = ["ingest", "report", "migrate", "push"]

    @Test(
        .enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"),
        arguments: HostileFile.allCases, commands)
    func aHostileDatabaseIsRefusedWithExitStatus74AndLeftByteIdentical(file: HostileFile, command: String) throws {
        let database = TemporaryDatabase()
        defer { HostileFile.restore(database.folder) }
        try #"{"name":"al_nav_in","ts":1763683200000,"fields":{"ref":"hostile"}}"#
            .write(toFile: database.file("in.ndjson"), atomically: true, encoding: .utf8)
        let path = try file.make(in: database.folder)
        var executable = try BuiltAlstats.require()
        if !file.commandPrefix.isEmpty {
            // `nobody` may not reach the build folder (a clone under /root): it runs a copy in the test's folder.
            executable = database.file("alstats-copy")
            try HostileFile.copyExecutable(from: BuiltAlstats.require(), to: executable)
        }
        let before = TemporaryDatabase.bytes(path)
        let listing = try FileManager.default.contentsOfDirectory(atPath: database.folder.path).sorted()

        var arguments = [command, "--database", path]
        if command == "ingest" { arguments.append("in.ndjson") }
        // Nothing listens on port 9: the file must be refused before anything is sent.
        if command == "push" { arguments += ["--to", "http://127.0.0.1:9", "--write-key", "k"] }
        let result: ProcessResult
        if file.commandPrefix.isEmpty {
            result = try BuiltAlstats.run(arguments, in: database.folder)
        } else {
            result = try ProcessRunner.run(
                HostileFile.setpriv, file.commandPrefix + [executable] + arguments, in: database.folder)
        }

        #expect(result.status == 74, "\(result.errors)")
        let lines = result.errors.split(separator: "\n")
        #expect(lines.count == 1, "one line on stderr, not: \(result.errors)")
        #expect(result.errors.hasPrefix("alstats: ") && result.errors.contains(path))
        #expect(!result.errors.contains("Fatal error") && !result.errors.contains("Stack"))
        #expect(result.output.isEmpty)
        #expect(TemporaryDatabase.bytes(path) == before, "the database changed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: database.folder.path).sorted() == listing)
        switch file {
        case .notSQLite: #expect(result.errors.contains("not an SQLite database"))
        case .garbagePages: #expect(result.errors.contains("damaged"))
        case .newerSchema, .newerMigrationRecord: #expect(result.errors.contains("newer alstats"))
        case .readOnlyFile, .readOnlyFolder: #expect(result.errors.contains("writ"))
        }
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func aReportOnAMissingDatabaseExitsWith66AndCreatesNothing() throws {
        let database = TemporaryDatabase()
        let result = try BuiltAlstats.run(["report", "--database", database.path], in: database.folder)
        #expect(result.status == 66)
        #expect(result.errors.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: database.path))
    }
}
