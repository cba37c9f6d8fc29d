import Foundation
import Testing

@testable import EventStore

/// The embedded SQL index names every `.sql` file of its folders, and the embedded text is the file's.
struct EmbeddedSQLTests {
    /// `Sources/EventStore/FOLDER`, from this file's path.
    static func folder(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/EventStore/\(name)").path
    }

    @Test func theEmbeddedMigrationsAreExactlyTheFilesInMigrations() throws {
        let files = try EmbeddedSQLFile.files(in: Self.folder("Migrations"))
        #expect(!files.isEmpty)
        #expect(EmbeddedSQL.migrations == files, "list every Migrations/*.sql in EmbeddedSQL.migrations")
    }

    @Test func theEmbeddedStatementsAreExactlyTheFilesInStatements() throws {
        let files = try EmbeddedSQLFile.files(in: Self.folder("Statements"))
        #expect(!files.isEmpty)
        #expect(EmbeddedSQL.statements == files, "list every Statements/*.sql in EmbeddedSQL.statements")
    }

    @Test func theInsertAndSelectStatementsListTheColumnsInBindingOrder() {
        let expected = ["id", "ts_ms", "name"] + EventColumns.fields.map(\.column) + ["extra"]
        for sql in [EventColumns.insertSQL, EventColumns.selectSQL] {
            let code = sql.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: " ")
            let list = code.firstMatch(of: /(?:INSERT INTO events \(|SELECT)\s*([a-z_,\s]+?)\s*(?:\)|FROM)/)?.1 ?? ""
            #expect(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } == expected)
        }
    }

    @Test func migrationsAreNumberedInOrderWithoutGaps() {
        let versions = EmbeddedSQL.migrations.compactMap(\.migrationVersion)
        let expected = Array(1...versions.count)
        #expect(versions == expected)
        #expect(EmbeddedSQL.migrations.allSatisfy { $0.name.wholeMatch(of: /\d{4}_[a-z0-9_]+\.sql/) != nil })
    }
}
