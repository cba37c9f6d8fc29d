import Foundation

/// What a finished process left: its exit status and everything it wrote.
public struct ProcessResult: Sendable {
    /// The exit status.
    public var status: Int32
    /// Standard output, decoded as UTF-8.
    public var output: String
    /// Standard error, decoded as UTF-8.
    public var errors: String
}

/// Runs a program to its end and collects its output: the one process runner of the tests.
public enum ProcessRunner {
    /// Runs `executable` with `arguments`.
    /// - Parameters:
    ///   - folder: the working directory; by default the test's.
    ///   - environment: variables set (or, with `nil`, removed) on top of the test's environment.
    ///     `ALSTATS_DATABASE` is always removed first, so that a developer's setting never leaks in.
    ///   - input: written to standard input, which is then closed.
    public static func run(
        _ executable: String, _ arguments: [String], in folder: URL? = nil, environment: [String: String?] = [:],
        input: Data? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        var variables = ProcessInfo.processInfo.environment
        variables["ALSTATS_DATABASE"] = nil
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        // Read standard error on its own thread: a process that fills one pipe while we wait on the other
        // would never finish.
        let errorBytes = BytesReader(errors.fileHandleForReading)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errorBytes.wait()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self))
    }
}

/// Reads a file handle to its end on a thread of its own.
///
/// `@unchecked Sendable`: `data` is written once by the reading thread before it signals `done`, and read
/// only after `wait()` has seen that signal.
private final class BytesReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
