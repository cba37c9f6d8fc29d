import Foundation

/// Paths inside this repository's checkout, for tests that hold what the binary embeds to the files it came from.
public enum Repository {
    /// The checkout's root folder (two levels above `Tests/TestSupport`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The absolute path of `relative` in the checkout, for example `Repository.path("Queries")`.
    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }
}
