import Foundation

/// The `alstats` binary of this build, found beside the test bundle, so that the debug, release and
/// ThreadSanitizer runs each test their own binary.
///
/// Where the binary is missing, tests that need it are skipped on a developer's machine, and FAIL under
/// CI (`CI` set): a CI run that skipped them would pass without testing the CLI.
///
/// ```swift
/// @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
/// func reportRuns() throws {
///     let result = try BuiltAlstats.run(["report", "--database", path])
///     #expect(result.status == 0, "\(result.errors)")
/// }
/// ```
public enum BuiltAlstats {
    /// Where the binary is, or `nil` when it was not built.
    public static let path: String? = candidates().first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether tests that run the binary run: it is there, or this is CI (where its absence is a failure).
    public static var shouldRun: Bool { path != nil || isCI }

    /// Whether `CI` is set in the environment.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } ?? false }

    /// The binary's path.
    /// - Throws: ``Missing`` when it was not built.
    public static func require() throws -> String {
        guard let path else { throw Missing(searched: candidates()) }
        return path
    }

    /// Runs the binary (see ``ProcessRunner/run(_:_:in:environment:input:)``).
    /// - Throws: ``Missing`` when it was not built.
    public static func run(
        _ arguments: [String], in folder: URL? = nil, environment: [String: String?] = [:], input: Data? = nil
    ) throws -> ProcessResult {
        try ProcessRunner.run(require(), arguments, in: folder, environment: environment, input: input)
    }

    /// The built `alstats` is not beside the test bundle.
    public struct Missing: Error, CustomStringConvertible {
        /// The paths looked at.
        public var searched: [String]

        public var description: String {
            "alstats is not built beside the tests (looked at \(searched.joined(separator: ", "))); "
                + "build it with swift build --build-tests"
        }
    }

    /// The folder of the test bundle (the products directory of this build), then the process's own.
    private static func candidates() -> [String] {
        let bundle = Bundle.main.bundleURL
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let paths = [bundle.appendingPathComponent("alstats").path, executable.appendingPathComponent("alstats").path]
        return paths[0] == paths[1] ? [paths[0]] : paths
    }
}

extension BuiltAlstats {
    /// The AlstatsSQLite loadable extension of this build, beside `alstats`.
    /// - Throws: ``Missing`` when `alstats` was not built; the extension is checked by the tests that load it.
    public static func sqliteExtension() throws -> String {
        URL(fileURLWithPath: try require()).deletingLastPathComponent().appendingPathComponent("libAlstatsSQLite.so")
            .path
    }
}
