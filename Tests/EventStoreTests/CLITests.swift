import Foundation
import Testing

/// A few end-to-end runs of the built `alstats` (build it first: `swift build`). Serialized: a binary copied
/// while another test forks cannot be executed ("text file busy").
@Suite(.serialized)
struct CLITests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/alstats").path

    static var built: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    /// Runs `executable` with `arguments` in `folder`; returns the exit status, stdout and stderr.
    static func run(
        _ arguments: [String], executable: String = binary, in folder: URL, input: Data? = nil
    ) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["ALSTATS_DATABASE"] = nil
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func ingestReportsBadLinesExportsAndReadsStandardInput() throws {
        let database = TemporaryDatabase()
        let file = database.file("in.ndjson")
        try """
        {"name":"al_nav_out","ts":"2025-11-21T00:00:00Z","fields":{"success":"1","type":"app","ref":"a\\n🎉"}}
        {"name":
        {"name":"al_nav_in","ts":1763683200001,"fields":{"ref":"a"}}

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let ingest = try Self.run(["ingest", "in.ndjson"], in: database.folder)
        #expect(ingest.status == 65)
        #expect(ingest.errors.hasPrefix("in.ndjson:2: invalid JSON"))
        let export = try Self.run(["export"], in: database.folder)
        #expect(export.status == 0)
        #expect(export.output.split(separator: "\n").count == 2)
        let copy = try Self.run(
            ["ingest", "--database", "copy.sqlite", "-"], in: database.folder, input: Data(export.output.utf8))
        #expect(copy.status == 0)
        #expect(try Self.run(["export", "--database", "copy.sqlite"], in: database.folder).output == export.output)
        let missing = try Self.run(["ingest", "nope.ndjson"], in: database.folder)
        #expect(missing.status == 66)
        #expect(missing.errors.contains("nope.ndjson"))
    }

    @Test(.enabled(if: built, "build alstats first with swift build"))
    func aCopiedBinaryStillMigratesANewDatabase() throws {
        let folder = TemporaryDatabase()
        let copy = folder.file("alstats")
        try FileManager.default.copyItem(atPath: Self.binary, toPath: copy)
        let result = try Self.run(["migrate", "--database", "fresh.sqlite"], executable: copy, in: folder.folder)
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("schema version "))
        #expect(FileManager.default.fileExists(atPath: folder.file("fresh.sqlite")))
    }
}
