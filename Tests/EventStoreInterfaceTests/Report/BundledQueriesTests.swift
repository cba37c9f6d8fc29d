import EmbeddedSQLFiles
import TestSupport
import Testing

@testable import EventStoreInterface

/// The bundled queries are the files of `Queries/` (portable, what `sqlite3` runs) and `Queries/postgres/` (what
/// PostgreSQL runs instead), byte for byte, and each dialect lists every portable query once.
struct BundledQueriesTests {
    static let root = Repository.path("Queries")

    @Test func theBundledQueriesAreExactlyTheFilesOfTheQueriesFolders() throws {
        let portable = try EmbeddedSQLFile.files(in: Self.root)
        #expect(portable.count >= 11)
        #expect(BundledQueries.files == portable, "the embedded queries differ from Queries/*.sql")
        let postgres = try EmbeddedSQLFile.files(in: Self.root + "/postgres")
        #expect(!postgres.isEmpty)
        #expect(BundledQueries.postgresFiles == postgres, "the embedded queries differ from Queries/postgres/*.sql")
    }

    @Test func everyPostgresVariantHasItsPortableFile() {
        let portable = Set(BundledQueries.files.map(\.stem))
        for variant in BundledQueries.postgresFiles {
            #expect(portable.contains(variant.stem), "Queries/postgres/\(variant.name) has no Queries/\(variant.name)")
        }
    }

    @Test func eachDialectRunsItsOwnTextOfEveryQuery() throws {
        let sqlite = QueryCatalog.all(dialect: .sqlite)
        let postgres = QueryCatalog.all(dialect: .postgres)
        #expect(sqlite.map(\.name) == BundledQueries.files.map(\.stem).sorted())
        #expect(postgres.map(\.name) == sqlite.map(\.name))
        for variant in BundledQueries.postgresFiles {
            let query = try #require(QueryCatalog.query(named: variant.stem, dialect: .postgres))
            #expect(query.text == variant.text)
            #expect(QueryCatalog.query(named: variant.stem, dialect: .sqlite)?.text != variant.text)
        }
        #expect(sqlite.allSatisfy { !$0.summary.isEmpty })
    }
}
