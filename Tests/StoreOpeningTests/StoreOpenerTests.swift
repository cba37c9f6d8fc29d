import EventIngest
import EventStoreInterface
import Foundation
import MeasurementEvents
import StoreOpening
import TestSupport
import Testing

#if Server
import PostgresTestSupport
#endif

/// The one opener of stores: a path opens the SQLite file as each access needs, a PostgreSQL URL the server's
/// database, and what it opens writes, keeps links, ingests and reports as one store.
struct StoreOpenerTests {
    static let link = StoredLink(slug: "invite", json: #"{"slug":"invite","web":{"url":"https://a.example"}}"#)

    /// Writes, keeps a link and ingests through `store`, then reads it all back through its report.
    static func useEveryPart(of store: OpenedStore, folder: TemporaryDatabase) async throws {
        #expect(try await store.backend.write(sampleEvents(3, idPrefix: "written")) == 3)
        try await store.linkStore.putLinks([link])
        #expect(try await store.linkStore.link(slug: "invite")?.json == link.json)
        let file = folder.file("in.ndjson")
        try sampleEvents(5, start: 1_763_683_300_000, idPrefix: "ingested").map(NDJSONCodec.line(for:))
            .joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let summary = try await store.ingester.ingest(
            [IngestInput(path: file)], options: IngestOptions(), onInvalidLine: { Issue.record("\($0)") },
            progress: nil)
        #expect(summary.stored == 5)
        #expect(try await store.backend.count() == 8)
        let query = try #require(QueryCatalog.query(named: "source_hosts", dialect: store.reports.dialect))
        #expect(try await store.reports.runQuery(query, parameters: [:]).columns.isEmpty == false)
    }

    @Test func aFileOpenedToWriteIsOneStoreForEveryPart() async throws {
        let folder = TemporaryDatabase()
        let store = try await StoreOpener.open(.sqlite(path: folder.path), .create)
        try await Self.useEveryPart(of: store, folder: folder)
        try await store.close()
        #expect(FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func readingOrWritingOnlyAnExistingFileRefusesAMissingOneAndCreatesNothing() async throws {
        let folder = TemporaryDatabase()
        for access in [StoreAccess.read, .existing] {
            let error = await #expect(throws: StoreError.self) {
                try await StoreOpener.open(.sqlite(path: folder.path), access)
            }
            #expect(error?.kind == .missing)
            #expect(error?.remedy == .existingOrNewDatabase)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func aServedFileKeepsItsLinksOnASecondConnectionThatSeesTheWritersCommits() async throws {
        let folder = TemporaryDatabase()
        let store = try await StoreOpener.open(.sqlite(path: folder.path), .serve(.full))
        #expect(store.linkStore !== store.backend)
        try await store.backend.write(sampleEvents(2))
        try await store.linkStore.putLinks([Self.link])
        #expect(try await store.linkStore.links().map(\.slug) == ["invite"])
        let daily = try #require(QueryCatalog.query(named: "report_daily", dialect: .sqlite))
        #expect(try await store.reports.runQuery(daily, parameters: [:]).rows.isEmpty == false)
        try await store.close()
    }

    #if Server
    @Test(.enabled(if: PostgresTestDatabase.shouldRun))
    func aPostgresURLIsOneStoreForEveryPart() async throws {
        try await PostgresTestDatabase.with { url in
            let folder = TemporaryDatabase()
            let store = try await StoreOpener.open(try StoreLocation(parsing: url), .create)
            #expect(store.reports.dialect == .postgres)
            try await Self.useEveryPart(of: store, folder: folder)
            try await store.close()
        }
    }

    @Test func aServedPostgresStoreConnectsOnlyOnceItsServicesRun() throws {
        // Nothing listens on port 9: opening for serving must not try, and must hand over the pool to run.
        let location = try StoreLocation(parsing: "postgres://alstats:secret@127.0.0.1:9/alstats?sslmode=disable")
        let store = try StoreOpener.openForServing(location, durability: .normal)
        #expect(store.services.count == 1)
        #expect(store.linkStore === store.backend)
    }
    #else
    @Test func aPostgresURLIsRefusedByABuildWithoutTheBackend() async throws {
        let location = try StoreLocation(parsing: "postgres://alstats:secret@127.0.0.1:9/alstats")
        let error = await #expect(throws: StoreError.self) { try await StoreOpener.open(location, .read) }
        #expect(error?.kind == .invalidLocation)
        #expect(error?.message.contains("secret") == false)
    }
    #endif
}
