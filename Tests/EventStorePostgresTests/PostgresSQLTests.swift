#if Server

import EmbeddedSQLFiles
import EventReport
import Foundation
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// The embedded SQL index names every `.sql` file of the module's folders, and splitting a file into statements
/// keeps each statement whole.
struct PostgresSQLTests {
    @Test func theEmbeddedMigrationsAreExactlyTheFilesInMigrationsPostgres() throws {
        let files = try EmbeddedSQLFile.files(in: Repository.path("Migrations/postgres"))
        #expect(files.count >= 7)
        #expect(PostgresSQL.migrations == files, "the embedded migrations differ from Migrations/postgres/*.sql")
    }

    @Test func theEmbeddedStatementsAreExactlyTheFilesInStatements() throws {
        let files = try EmbeddedSQLFile.files(in: Repository.path("Sources/EventStorePostgres/Statements"))
        #expect(!files.isEmpty)
        #expect(PostgresSQL.statements == files, "the embedded statements differ from Statements/*.sql")
    }

    /// Numbers handed to branches not merged yet: a gap there closes when they land (the migrator skips any version
    /// below the database's, so no other gap may ever ship). Empty this list once they are in.
    static let reservedVersions: Set<Int> = [8, 9]

    @Test func migrationsAreNumberedInOrderWithoutGaps() {
        let versions = PostgresSQL.migrations.compactMap(\.migrationVersion)
        let last = versions.last ?? 0
        #expect(versions == Array(1...last).filter { versions.contains($0) || !Self.reservedVersions.contains($0) })
        #expect(PostgresEventStore.latestSchemaVersion == last)
    }

    @Test func splittingDropsCommentsAndKeepsMultiLineStatementsWhole() {
        let text = "-- header; with a semicolon;\nCREATE TABLE a (\n    x int\n);\n\n-- next\nDROP TABLE a;\n"
        #expect(PostgresSQL.split(text) == ["CREATE TABLE a (\n    x int\n)", "\nDROP TABLE a"])
    }

    /// A `DO` block's statements end lines too: the block is one statement, up to the `;` after its closing `$$`.
    @Test func splittingKeepsABodyQuotedWithDollarsWhole() {
        let text = "DO $$\nBEGIN\n    PERFORM 1;\n    PERFORM 2;\nEND\n$$;\nSELECT $$a;$$;\nSELECT 3;\n"
        #expect(
            PostgresSQL.split(text) == [
                "DO $$\nBEGIN\n    PERFORM 1;\n    PERFORM 2;\nEND\n$$", "SELECT $$a;$$", "SELECT 3",
            ])
    }

    @Test func namedParametersBecomeNumberedTextParametersOutsideStringsCommentsAndCasts() {
        let sql = PostgresNamedSQL(
            """
            -- :not_a_parameter in a comment
            SELECT ':inside' AS "a:b", :since::bigint, CAST(:until AS BIGINT), x::text /* :nor_here */
            WHERE (:since IS NULL OR ts > :since) AND ref = :ref_2 AND 'it''s :quoted' <> :ref_2
            """)
        #expect(sql.names == ["since", "until", "ref_2"])
        #expect(
            sql.text == """
                -- :not_a_parameter in a comment
                SELECT ':inside' AS "a:b", $1::text::bigint, CAST($2::text AS BIGINT), x::text /* :nor_here */
                WHERE ($1::text IS NULL OR ts > $1::text) AND ref = $3::text AND 'it''s :quoted' <> $3::text
                """)
        #expect(sql.bindings(["since": "5"]).count == 3)
        #expect(PostgresNamedSQL("SELECT ':unterminated").names.isEmpty)
        #expect(PostgresNamedSQL("SELECT 1 /* :open").names.isEmpty)
        #expect(PostgresNamedSQL("SELECT :").text == "SELECT :")
    }

    @Test func noBundledQueryInItsPostgresFormCallsSQLiteOnlyFunctions() {
        for query in QueryCatalog.all(dialect: .sqlite) {
            let variant = QueryCatalog.query(named: query.name, dialect: .postgres)
            #expect(variant != nil, "\(query.name)")
            #expect(!(variant?.text.contains("strftime(") ?? true), "\(query.name): PostgreSQL has no strftime")
            #expect(!(variant?.text.contains("group_concat(") ?? true), "\(query.name): PostgreSQL has no group_concat")
        }
    }

    @Test func anURLThatIsNotPostgresIsRefusedWithAMessageNamingItWithoutItsPassword() {
        for url in [
            "alstats.sqlite", "http://db.example.com/x", "postgres://db.example.com/x", "postgres://u@/x",
            "postgres://u:s3cret@db.example.com/x?sslmode=sometimes",
        ] {
            #expect {
                _ = try PostgresServerURL(url)
            } throws: { error in
                (error as? StoreError)?.kind == .invalidLocation
                    && "\(error)".contains(PostgresLocation.redacting(url)) && !"\(error)".contains("s3cret")
            }
        }
    }

    @Test func thePasswordIsLeftOutOfTheLocation() throws {
        let location = try PostgresServerURL("postgres://alstats:s3cret@db.example.com:6543/stats?sslmode=disable")
        #expect(!location.redacted.contains("s3cret"))
        #expect(location.configuration.port == 6543)
        #expect(location.configuration.database == "stats")
    }

    @Test(arguments: [
        (Int64(1_774_137_600_000), "events_2026_03", Int64(1_772_323_200_000), Int64(1_775_001_600_000)),
        (Int64(0), "events_1970_01", Int64(0), Int64(2_678_400_000)),
        (Int64(-1), "events_1969_12", Int64(-2_678_400_000), Int64(0)),
    ])
    func anInstantFallsInTheMonthPartitionThatHoldsIt(milliseconds: Int64, name: String, start: Int64, end: Int64) {
        let partition = PostgresEventStore.monthPartition(of: milliseconds)
        #expect(partition?.name == name)
        #expect(partition?.start == start)
        #expect(partition?.end == end)
    }

    @Test func instantsOutsideYears1900To9999GoToTheDefaultPartition() {
        #expect(PostgresEventStore.monthPartition(of: .min) == nil)
        #expect(PostgresEventStore.monthPartition(of: .max) == nil)
    }
}

#endif
