import EmbeddedSQLFiles
import Foundation
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite

/// What the binary embeds (the EmbedSQL plugin's `GeneratedSQL`) is every `.sql` file of its folders, byte for
/// byte: a stale or partial embedding fails here.
struct EmbeddedSQLTests {
    @Test func theEmbeddedMigrationsAreExactlyTheFilesInTheTopLevelMigrationsFolder() throws {
        let files = try EmbeddedSQLFile.files(in: Repository.path("Migrations"))
        #expect(files.count >= 15)
        #expect(EmbeddedSQL.migrations == files, "the embedded migrations differ from Migrations/*.sql")
    }

    @Test func theEmbeddedStatementsAreExactlyTheFilesInStatements() throws {
        let files = try EmbeddedSQLFile.files(in: Repository.path("Sources/EventStoreSQLite/Statements"))
        #expect(!files.isEmpty)
        #expect(EmbeddedSQL.statements == files, "the embedded statements differ from Statements/*.sql")
    }

    @Test func theInsertAndSelectStatementsListTheColumnsInBindingOrder() {
        let expected = ["id", "ts_ms", "name"] + EventColumns.fields.map(\.column) + ["extra"]
        // The insert binds `packed` last (PackedFields.packedIndex); the select reads its payload there.
        for (sql, last) in [(EventColumns.insertSQL, "packed"), (EventColumns.selectSQL, "alstats_unpack(packed)")] {
            let code = sql.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: " ")
            let list =
                code.firstMatch(of: /(?:INSERT INTO events \(|SELECT)\s*([a-z_(),\s]+?)\s*(?:\) VALUES|FROM)/)?.1 ?? ""
            #expect(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == expected + [last])
        }
        #expect(PackedFields.packedIndex == Int32(expected.count + 1))
    }

    /// Numbers handed to branches not merged yet: a gap there closes when they land (a migrator skips any version
    /// below the database's, so no other gap may ever ship). Empty this list once they are in.
    static let reservedVersions: Set<Int> = [17, 18]

    @Test func migrationsAreNumberedInOrderWithoutGaps() {
        let versions = EmbeddedSQL.migrations.compactMap(\.migrationVersion)
        let expected = Array(1...(versions.last ?? 0)).filter {
            versions.contains($0) || !Self.reservedVersions.contains($0)
        }
        #expect(versions == expected)
        #expect(EmbeddedSQL.migrations.allSatisfy { $0.name.wholeMatch(of: /\d{4}_[a-z0-9_]+\.sql/) != nil })
    }
}
