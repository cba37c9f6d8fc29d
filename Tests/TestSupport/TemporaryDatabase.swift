import Foundation

/// A fresh folder per test, holding the test's database; removed when released.
public final class TemporaryDatabase: Sendable {
    /// The folder, empty at first.
    public let folder: URL
    /// The database path in it (the file is not created).
    public let path: String

    /// Creates the folder; the database will be `name` in it.
    public init(name: String = "alstats.sqlite") {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("alstats-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A path in the test's folder.
    public func file(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The bytes of a file, or empty when it does not exist.
    public static func bytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }
}
