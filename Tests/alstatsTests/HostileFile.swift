import Foundation
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// A database file (or its folder) that `alstats` must refuse without changing a byte, built in a fresh folder.
///
/// Read-only cases need a process that permissions stop. Root ignores file modes, so when the tests run as
/// root (as CI does) ``commandPrefix`` runs `alstats` as `nobody` through `setpriv`, on files and folders
/// owned by root; otherwise the modes are simply set to read-only.
enum HostileFile: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Text that is not SQLite.
    case notSQLite
    /// A valid SQLite header page followed by garbage pages.
    case garbagePages
    /// A database written by a newer alstats: a higher schema version recorded and in `user_version`.
    case newerSchema
    /// A database whose `schema_migrations` records a newer migration, its `user_version` unchanged.
    case newerMigrationRecord
    /// A database file that cannot be written.
    case readOnlyFile
    /// A writable database file in a folder that cannot be written (WAL needs its -wal and -shm files there).
    case readOnlyFolder

    var testDescription: String { rawValue }

    /// Whether the case needs a process without write permission.
    var needsReadOnlyProcess: Bool { self == .readOnlyFile || self == .readOnlyFolder }

    /// `nobody` on Linux.
    static let unprivilegedID = 65_534

    static var isRoot: Bool { getuid() == 0 }

    /// util-linux's `setpriv`, which runs a command under another user id.
    static let setpriv = "/usr/bin/setpriv"

    /// What runs before the `alstats` arguments: `setpriv` to `nobody` for read-only cases under root.
    var commandPrefix: [String] {
        guard needsReadOnlyProcess, HostileFile.isRoot else { return [] }
        let id = HostileFile.unprivilegedID
        return ["--reuid=\(id)", "--regid=\(id)", "--clear-groups", "--"]
    }

    /// Creates the hostile database at `folder/alstats.sqlite` and returns its path.
    func make(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("alstats.sqlite").path
        switch self {
        case .notSQLite:
            let text = Data("id,name,ts\n1,al_nav_in,1763683200000\n".utf8) + Data(repeating: 0x41, count: 5_000)
            try text.write(to: URL(fileURLWithPath: path))
        case .garbagePages:
            try HostileFile.makeValidDatabase(path)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // Keep page 1 (the header and the schema), scribble over every other page.
            for offset in 4_096..<bytes.count { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 131 &+ 7) }
            try bytes.write(to: URL(fileURLWithPath: path))
        case .newerSchema:
            try HostileFile.makeValidDatabase(path)
            let version = SQLiteEventStore.latestSchemaVersion + 1
            let connection = try SQLiteConnection(path: path, create: false)
            try connection.execute(
                "INSERT INTO schema_migrations VALUES (\(version), 'from_the_future', '2030-01-01T00:00:00Z');"
                    + "PRAGMA user_version = \(version)")
        case .newerMigrationRecord:
            try HostileFile.makeValidDatabase(path)
            let version = SQLiteEventStore.latestSchemaVersion + 1
            let connection = try SQLiteConnection(path: path, create: false)
            try connection.execute(
                "INSERT INTO schema_migrations VALUES (\(version), 'from_the_future', '2030-01-01T00:00:00Z')")
        case .readOnlyFile:
            try HostileFile.makeValidDatabase(path)
            if HostileFile.isRoot {
                // The folder is writable by anyone, the file (root's, 0644) not by nobody.
                try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
            } else {
                try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            }
        case .readOnlyFolder:
            try HostileFile.makeValidDatabase(path)
            if HostileFile.isRoot {
                // The file is writable by anyone, the folder (root's, 0755) not by nobody.
                try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: path)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            } else {
                try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
            }
        }
        return path
    }

    /// Makes `folder` writable again so that it can be removed.
    /// Copies the executable at `source` to `destination` through a descriptor opened close-on-exec.
    /// `FileManager.copyItem` opens its destination without `O_CLOEXEC`: a test forking a process meanwhile (another
    /// case of the suite) hands the child a descriptor open for writing, and running the copy then fails with
    /// "Text file busy" for as long as the child lives.
    static func copyExecutable(from source: String, to destination: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }

    static func restore(_ folder: URL) {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
    }

    /// A closed, checkpointed database with a few hundred events (WAL mode recorded in its header).
    static func makeValidDatabase(_ path: String) throws {
        let store = try SQLiteEventStore(path: path)
        try store.write(sampleEvents(600))
    }
}
