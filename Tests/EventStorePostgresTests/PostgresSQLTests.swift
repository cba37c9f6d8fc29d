import EventStore
import Foundation
import Testing

@testable import EventStorePostgres

/// The embedded SQL index names every `.sql` file of the module's folders, and splitting a file into statements
/// keeps each statement whole.
struct PostgresSQLTests {
    /// `Sources/EventStorePostgres/FOLDER`, from this file's path.
    static func folder(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/EventStorePostgres/\(name)").path
    }

    @Test func theEmbeddedMigrationsAreExactlyTheFilesInMigrations() throws {
        let files = try EmbeddedSQLFile.files(in: Self.folder("Migrations"))
        #expect(!files.isEmpty)
        #expect(PostgresSQL.migrations == files, "list every Migrations/*.sql in PostgresSQL.migrations")
    }

    @Test func theEmbeddedStatementsAreExactlyTheFilesInStatements() throws {
        let files = try EmbeddedSQLFile.files(in: Self.folder("Statements"))
        #expect(!files.isEmpty)
        #expect(PostgresSQL.statements == files, "list every Statements/*.sql in PostgresSQL.statements")
    }

    @Test func migrationsAreNumberedInOrderWithoutGaps() {
        let versions = PostgresSQL.migrations.compactMap(\.migrationVersion)
        #expect(versions == Array(1...versions.count))
        #expect(PostgresEventStore.latestSchemaVersion == versions.count)
    }

    @Test func splittingDropsCommentsAndKeepsMultiLineStatementsWhole() {
        let text = "-- header; with a semicolon;\nCREATE TABLE a (\n    x int\n);\n\n-- next\nDROP TABLE a;\n"
        #expect(PostgresSQL.split(text) == ["CREATE TABLE a (\n    x int\n)", "\nDROP TABLE a"])
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
