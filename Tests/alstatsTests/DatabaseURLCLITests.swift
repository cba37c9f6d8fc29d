import Foundation
import TestSupport
import Testing

/// `--database` with a PostgreSQL URL of a server that refuses the connection: one clear line naming the URL and
/// what to check, at once (not after the 10 s connect timeout: PostgresReachabilityTests), exit 74 (EX_IOERR), no
/// password, no file created. The core-only build (no `Server` trait) has no PostgreSQL backend: there the same line
/// says so, with exit 78 (EX_CONFIG), before any connection.
struct DatabaseURLCLITests {
    #if !Server
    static let unreachableStatus: Int32 = 78
    #else
    static let unreachableStatus: Int32 = 74
    #endif

    /// Port 9 (discard): nothing listens there, so the connection is refused at once.
    static let url = "postgres://alstats:Hunter2-s3cr3t@127.0.0.1:9/alstats?sslmode=disable"

    @Test(
        .enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"),
        arguments: [
            ["migrate"], ["ingest", "in.ndjson"], ["export"], ["report"], ["query", "failure_reasons"],
            ["links", "list"], ["links", "show", "invite"], ["links", "delete", "invite"],
        ])
    func aPostgresURLOfAServerThatDoesNotAnswerIsAnIOErrorWithoutThePassword(command: [String]) throws {
        let folder = TemporaryDatabase()
        try "{\"name\":\"al_nav_in\",\"ts\":1763683200000,\"fields\":{}}\n".write(
            toFile: folder.file("in.ndjson"), atomically: true, encoding: .utf8)
        let result = try BuiltAlstats.run(command + ["--database", Self.url], in: folder.folder)
        #expect(result.status == Self.unreachableStatus, "\(result.errors)")
        #expect(result.errors.contains("127.0.0.1:9"), "\(result.errors)")
        #if Server
        #expect(result.errors.contains("was refused"), "\(result.errors)")
        #endif
        #expect(!result.errors.contains("Hunter2"))
        #expect(result.output.isEmpty)
        let created = try FileManager.default.contentsOfDirectory(atPath: folder.folder.path)
        #expect(created == ["in.ndjson"])
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theDatabaseURLComesFromTheEnvironmentToo() throws {
        let folder = TemporaryDatabase()
        let result = try BuiltAlstats.run(["report"], in: folder.folder, environment: ["ALSTATS_DATABASE": Self.url])
        #expect(result.status == Self.unreachableStatus, "\(result.errors)")
        #expect(!result.errors.contains("Hunter2"))
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func anInvalidDatabaseURLIsAUsageErrorWithoutThePassword() throws {
        let folder = TemporaryDatabase()
        let result = try BuiltAlstats.run(
            ["report", "--database", "postgres://alstats:Hunter2-s3cr3t@db.example.com:70000/alstats"],
            in: folder.folder)
        #expect(result.status == 64, "\(result.errors)")
        #expect(result.errors.contains("port must be a number"), "\(result.errors)")
        #expect(!result.errors.contains("Hunter2"))
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func pushAndDemoSayTheyWorkOnAnSQLiteFile() throws {
        let folder = TemporaryDatabase()
        for command in [["push", "--to", "http://127.0.0.1:9", "--write-key", "k"], ["demo", "--events", "10"]] {
            let result = try BuiltAlstats.run(command + ["--database", Self.url], in: folder.folder)
            #expect(result.status == 64, "\(command): \(result.errors)")
            #expect(result.errors.contains("works on an SQLite file"), "\(command): \(result.errors)")
            #expect(!result.errors.contains("Hunter2"))
        }
    }
}
