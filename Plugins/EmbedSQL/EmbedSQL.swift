import Foundation
import PackagePlugin

/// Embeds `.sql` files in the code of a target, so that a lone copied `alstats` binary still migrates a new
/// database and runs its queries, while the SQL itself stays where people look for it: the schema in the
/// top-level `Migrations/`, the bundled queries in the top-level `Queries/`, a module's own statements in its
/// `Statements/` folder.
///
/// For each target that uses it, the plugin runs `embed-sql` over the folders the table below names for that
/// target; the tool writes `GeneratedSQL.swift` into the build directory with one static array per folder, each
/// `(name, text)` pair a file of that folder, sorted by name. The inputs of the command are every `.sql` file of
/// the folders and the folders themselves: editing a file runs it again, and so does adding, removing or renaming
/// one (the folder's modification time changes), so a new file is embedded without a line of code anywhere.
@main
struct EmbedSQL: BuildToolPlugin {
    /// The folders each target embeds: the name of its array in `GeneratedSQL`, and the folder, relative to the
    /// package's root. Only the `.sql` files directly in a folder are embedded (not its subfolders).
    static let folders: [String: [(name: String, folder: String)]] = [
        "EventUpload": [("migrations", "Migrations/upload"), ("statements", "Sources/EventUpload/Statements")],
        "EventStoreSQLite": [("migrations", "Migrations"), ("statements", "Sources/EventStoreSQLite/Statements")],
        "EventStorePostgres": [
            ("migrations", "Migrations/postgres"), ("statements", "Sources/EventStorePostgres/Statements"),
        ],
        "EventStoreInterface": [("queries", "Queries"), ("postgresQueries", "Queries/postgres")],
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let folders = Self.folders[target.name] else {
            throw EmbedSQLError.noFolders(target: target.name)
        }
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "GeneratedSQL.swift")
        var arguments = [output.path(percentEncoded: false)]
        var inputs: [URL] = []
        for (name, folder) in folders {
            let directory = root.appending(path: folder)
            arguments.append("\(name)=\(directory.path(percentEncoded: false))")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false))
            inputs.append(URL(fileURLWithPath: directory.path(percentEncoded: false) + "/", isDirectory: true))
            inputs += files.filter { $0.hasSuffix(".sql") }.sorted().map { directory.appending(path: $0) }
        }
        return [
            .buildCommand(
                displayName: "Embedding the SQL of \(target.name)",
                executable: try context.tool(named: "embed-sql").url,
                arguments: arguments,
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}

/// What stops the plugin.
enum EmbedSQLError: Error, CustomStringConvertible {
    /// The target uses the plugin but has no line in `EmbedSQL.folders`.
    case noFolders(target: String)

    var description: String {
        switch self {
        case .noFolders(let target):
            "EmbedSQL has no folders for the target \(target): add a line to EmbedSQL.folders"
        }
    }
}
