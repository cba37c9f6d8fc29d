import Foundation

/// One `.sql` file embedded in a module by the EmbedSQL build plugin (Plugins/EmbedSQL): its name and its exact text.
/// This module is the plugin's runtime: the modules that own SQL (the two backends, the uploader, the bundled
/// queries) and SQLiteSupport's migrator share it, and it knows no database.
package struct EmbeddedSQLFile: Sendable, Hashable {
    /// The file name, for example `0001_create_events.sql`.
    package var name: String
    /// The file's exact text.
    package var text: String

    /// Creates a file from its name and text.
    package init(name: String, text: String) {
        self.name = name
        self.text = text
    }

    /// Equal names and texts, byte for byte (not `String`'s canonical equivalence: an embedded file must be the
    /// file's very bytes).
    package static func == (left: EmbeddedSQLFile, right: EmbeddedSQLFile) -> Bool {
        left.name.utf8.elementsEqual(right.name.utf8) && left.text.utf8.elementsEqual(right.text.utf8)
    }

    /// Hashes the bytes that ``==`` compares.
    package func hash(into hasher: inout Hasher) {
        for byte in name.utf8 { hasher.combine(byte) }
        hasher.combine(0xFF as UInt8)
        for byte in text.utf8 { hasher.combine(byte) }
    }

    /// The name without `.sql`.
    package var stem: String { name.hasSuffix(".sql") ? String(name.dropLast(4)) : name }

    /// The leading number of a migration file name (`0001_create_events.sql` → 1), or `nil`.
    package var migrationVersion: Int? { Int(name.prefix(while: { $0.isNumber })) }
}

extension [EmbeddedSQLFile] {
    /// The files of an index the EmbedSQL build plugin generated (`GeneratedSQL`'s `(name, text)` pairs).
    package init(generated: [(name: String, text: String)]) {
        self = generated.map { EmbeddedSQLFile(name: $0.name, text: $0.text) }
    }

    /// The text of the file named `stem` of this index; a missing name is a programmer error, caught by the test
    /// that the index matches its folder (`index` names the index in the message).
    package func text(of stem: String, index: String) -> String {
        guard let file = first(where: { $0.stem == stem }) else {
            preconditionFailure("\(stem).sql is not in \(index)")
        }
        return file.text
    }
}

extension EmbeddedSQLFile {
    /// The `.sql` files of `folder`, sorted by name, read from disk: what the embedded index must match.
    /// For the tests that hold each index to its folder.
    package static func files(in folder: String) throws -> [EmbeddedSQLFile] {
        let directory = URL(fileURLWithPath: folder)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }
            .sorted().map { name in
                EmbeddedSQLFile(
                    name: name, text: try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
            }
    }
}
