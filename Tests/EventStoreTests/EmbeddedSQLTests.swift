import Foundation
import Testing

@testable import EventStore

struct EmbeddedSQLTests {
    /// The repository root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func sqlFiles(_ folder: String) throws -> [EmbeddedSQLFile] {
        let directory = root.appendingPathComponent(folder)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }
            .sorted().map { name in
                EmbeddedSQLFile(
                    name: name, text: try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
            }
    }

    @Test func embeddedMigrationsEqualTheFilesInMigrations() throws {
        let files = try Self.sqlFiles("Migrations")
        #expect(!files.isEmpty)
        #expect(EmbeddedSQL.migrations == files, "run scripts/embed-sql after changing Migrations/*.sql")
    }

    @Test func embeddedQueriesEqualTheFilesInQueries() throws {
        #expect(
            EmbeddedSQL.queries == (try Self.sqlFiles("Queries")), "run scripts/embed-sql after changing Queries/*.sql")
    }

    @Test func embeddedStatementsEqualTheFilesInStatements() throws {
        #expect(
            EmbeddedSQL.statements == (try Self.sqlFiles("Statements")),
            "run scripts/embed-sql after changing Statements/*.sql")
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
        // 0009 is reserved for a parallel branch (the link rollups are 0010 until the merge renumbers them).
        let expected = Array(1...versions.count + 1).filter { $0 != 9 }
        #expect(versions == expected)
        #expect(EmbeddedSQL.migrations.allSatisfy { $0.name.wholeMatch(of: /\d{4}_[a-z0-9_]+\.sql/) != nil })
    }
}
