import EmbeddedSQLFiles
import Foundation
import Testing

/// The value every module's embedded `.sql` files are read as: compared byte for byte, named by stem and migration
/// number, and read back from a folder as the tests that hold each index to its folder do.
struct EmbeddedSQLFileTests {
    @Test func filesAreEqualOnlyWhenTheirBytesAre() {
        // "é" precomposed and decomposed: equal as Swift strings, not as the bytes of a file.
        let precomposed = EmbeddedSQLFile(name: "0001_create_t.sql", text: "SELECT '\u{E9}'")
        let decomposed = EmbeddedSQLFile(name: "0001_create_t.sql", text: "SELECT 'e\u{301}'")
        #expect(precomposed.text == decomposed.text)
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
        #expect(precomposed == EmbeddedSQLFile(name: "0001_create_t.sql", text: "SELECT '\u{E9}'"))
    }

    @Test(
        arguments: [
            ("0001_create_events.sql", "0001_create_events", 1),
            ("0017_create_click_tokens.sql", "0017_create_click_tokens", 17),
            ("report_daily.sql", "report_daily", nil), ("notes", "notes", nil),
        ] as [(String, String, Int?)])
    func namesGiveTheirStemAndMigrationNumber(name: String, stem: String, version: Int?) {
        let file = EmbeddedSQLFile(name: name, text: "")
        #expect(file.stem == stem)
        #expect(file.migrationVersion == version)
    }

    @Test func generatedIndexesReadAsFilesAndFindTheirTexts() {
        let files = [EmbeddedSQLFile](generated: [("a.sql", "SELECT 1"), ("b.sql", "SELECT 2")])
        #expect(files.map(\.name) == ["a.sql", "b.sql"])
        #expect(files.text(of: "b", index: "test") == "SELECT 2")
    }

    @Test func aFolderIsReadSortedWithItsSQLFilesOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("alstats-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in [
            ("0002_b.sql", "B;\n"), ("0001_a.sql", "A;\n"), ("README.md", "not SQL"), (".0003.sql.swp", ""),
        ] {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let files = try EmbeddedSQLFile.files(in: folder.path)
        #expect(
            files == [
                EmbeddedSQLFile(name: "0001_a.sql", text: "A;\n"), EmbeddedSQLFile(name: "0002_b.sql", text: "B;\n"),
            ])
    }
}
