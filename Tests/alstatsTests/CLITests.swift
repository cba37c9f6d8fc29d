import Foundation
import TestSupport
import Testing

/// A few end-to-end runs of the built `alstats` (build it first: `swift build`). Serialized: a binary copied
/// while another test forks cannot be executed ("text file busy").
@Suite(.serialized)
struct CLITests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func ingestReportsBadLinesExportsAndReadsStandardInput() throws {
        let database = TemporaryDatabase()
        let file = database.file("in.ndjson")
        try """
        {"name":"al_nav_out","ts":"2025-11-21T00:00:00Z","fields":{"success":"1","type":"app","ref":"a\\n🎉"}}
        {"name":
        {"name":"al_nav_in","ts":1763683200001,"fields":{"ref":"a"}}

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let ingest = try BuiltAlstats.run(["ingest", "in.ndjson"], in: database.folder)
        #expect(ingest.status == 65)
        #expect(ingest.errors.hasPrefix("in.ndjson:2: invalid JSON"))
        let export = try BuiltAlstats.run(["export"], in: database.folder)
        #expect(export.status == 0)
        #expect(export.output.split(separator: "\n").count == 2)
        let copy = try BuiltAlstats.run(
            ["ingest", "--database", "copy.sqlite", "-"], in: database.folder, input: Data(export.output.utf8))
        #expect(copy.status == 0)
        #expect(
            try BuiltAlstats.run(["export", "--database", "copy.sqlite"], in: database.folder).output == export.output)
        let missing = try BuiltAlstats.run(["ingest", "nope.ndjson"], in: database.folder)
        #expect(missing.status == 66)
        #expect(missing.errors.contains("nope.ndjson"))
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func ingestCountsOneEventOrLineInTheSingular() throws {
        let database = TemporaryDatabase()
        try #"{"id":"one","name":"al_nav_out","ts":1763683200000,"fields":{"ref":"a"}}"#.write(
            toFile: database.file("one.ndjson"), atomically: true, encoding: .utf8)
        try #"{"name":"#.write(toFile: database.file("bad.ndjson"), atomically: true, encoding: .utf8)
        let one = try BuiltAlstats.run(["ingest", "one.ndjson"], in: database.folder)
        #expect(one.status == 0)
        #expect(one.output.hasPrefix("stored 1 new event (0 already stored) in "), "\(one.output)")
        let bad = try BuiltAlstats.run(["ingest", "bad.ndjson"], in: database.folder)
        #expect(bad.status == 65)
        #expect(bad.errors.contains("1 of 1 line was invalid; 0 new valid events stored"), "\(bad.errors)")
    }

    /// A field whose name is a near miss of a catalogue name is stored as read (among the extras) and named on
    /// stderr: how many, the first few with the name probably meant; the host's own fields are not named.
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func ingestNamesMisspeltFieldsOnStandardErrorAndStoresThemAsRead() throws {
        let database = TemporaryDatabase()
        let misspelt = ["referer_app", "refererApp", "referrerAppName", "RefererAppName", "source_url", "Ref"]
        let lines = misspelt.enumerated().map { index, field in
            // The last line holds a fraction: decoded, not read in place.
            let more = index == misspelt.count - 1 ? #","ratio":0.5"# : ""
            return
                #"{"id":"n\#(index)","name":"al_nav_in","ts":1763683200000,"fields":{"\#(field)":"x","campaign":"c"\#(more)}}"#
        }
        let own = #"{"id":"own","name":"x","ts":1763683200000,"fields":{"al_applink_data_extras_foo":"1","ref":"a"}}"#
        try (lines + [own]).joined(separator: "\n").write(
            toFile: database.file("in.ndjson"), atomically: true, encoding: .utf8)
        let ingest = try BuiltAlstats.run(["ingest", "in.ndjson"], in: database.folder)
        #expect(ingest.status == 0, "\(ingest.errors)")
        #expect(ingest.output.hasPrefix("stored 7 new events (0 already stored)"), "\(ingest.output)")
        let errors = ingest.errors
        #expect(errors.contains("warning: 6 fields have names close to a catalogue name"), "\(errors)")
        let first = "in.ndjson:1: field 'referer_app' is not a catalogue name: did you mean 'refererAppName'?"
        #expect(errors.contains(first), "\(errors)")
        #expect(errors.contains("in.ndjson:3: field 'referrerAppName' is not a catalogue name"), "\(errors)")
        #expect(errors.contains("  and 1 more"), "\(errors)")
        #expect(!errors.contains("campaign") && !errors.contains("al_applink_data_extras_foo"), "\(errors)")
        let export = try BuiltAlstats.run(["export"], in: database.folder)
        #expect(export.output.contains(#""referer_app":"x""#), "stored as read: \(export.output)")
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func aCopiedBinaryStillMigratesANewDatabase() throws {
        let folder = TemporaryDatabase()
        let copy = folder.file("alstats")
        try FileManager.default.copyItem(atPath: BuiltAlstats.require(), toPath: copy)
        let result = try ProcessRunner.run(copy, ["migrate", "--database", "fresh.sqlite"], in: folder.folder)
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("schema version "))
        #expect(FileManager.default.fileExists(atPath: folder.file("fresh.sqlite")))
    }

    /// A usage error is one line starting `alstats:` (docs/cli.md, "Output"), naming the help to read, exit 64.
    @Test(
        .enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"),
        arguments: [
            (["report", "--since", "yesterday"], "alstats: --since 'yesterday' is not", "alstats report --help"),
            (["report", "--bogus"], "alstats: unknown option '--bogus'", "alstats report --help"),
            (["links", "put"], "alstats: missing expected argument", "alstats links put --help"),
            (["nonsense"], "alstats: unexpected argument 'nonsense'", "alstats --help"),
        ])
    func aUsageErrorIsOneLineStartingWithAlstats(arguments: [String], start: String, help: String) throws {
        let result = try BuiltAlstats.run(arguments)
        #expect(result.status == 64)
        #expect(result.errors.hasPrefix(start), "\(result.errors)")
        #expect(result.errors.contains("`\(help)` shows the options"), "\(result.errors)")
        #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
        #expect(!result.errors.contains("Error:") && !result.errors.contains("Usage:"))
    }

    /// `push` and `demo` work on an SQLite file only: their help offers no PostgreSQL URL.
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theHelpOfTheSQLiteOnlyCommandsOffersNoPostgresURL() throws {
        for command in ["push", "demo"] {
            let help = try BuiltAlstats.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.output.contains("--database <path>"), "\(command): \(help.output)")
            #expect(!help.output.contains("postgres"), "\(command): \(help.output)")
        }
        #expect(try BuiltAlstats.run(["report", "--help"]).output.contains("postgres://"))
    }
}
