import Foundation
import TestSupport

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// The migration tests' fixtures (Fixtures/schema-vN.sqlite, made by the alstats of that schema) and what
/// they compare before and after migrating.
enum MigrationFixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    /// The views, rollups and completeness of every schema since 5.
    static let eventTables = [
        "nav_in", "nav_out", "ref_back_out", "event_field", "event_rollup", "event_rollup_day",
        "event_rollup_series", "completeness",
    ]

    /// A fixture file's URL.
    static func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// A copy of Fixtures/`name` in a fresh folder.
    static func copy(_ name: String) throws -> TemporaryDatabase {
        let database = TemporaryDatabase()
        try FileManager.default.copyItem(atPath: file(name).path, toPath: database.path)
        return database
    }

    /// Every row of `tables` (tables or views), as text, sorted.
    static func contents(_ path: String, of tables: [String] = eventTables) throws -> [String] {
        let connection = try SQLiteConnection(path: path, create: false)
        var rows: [String] = []
        for table in tables {
            // completeness has a day of each count since 0019: the columns of the schemas before it are compared.
            let columns = table == "completeness" ? "kind, reason, count, updated_ms" : "*"
            let statement = try connection.prepare("SELECT \(columns) FROM \(table)")
            while try statement.step() {
                let values = (0..<statement.columnCount).map { statement.text($0) ?? "NULL" }
                rows.append(table + "|" + values.joined(separator: "|"))
            }
        }
        return rows.sorted()
    }
}
