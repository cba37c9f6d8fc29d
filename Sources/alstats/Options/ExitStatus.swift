import ArgumentParser
import Foundation

/// The exit statuses of docs/cli.md ("Exit status") (the BSD sysexits values).
enum ExitStatus {
    /// Success.
    static let ok: Int32 = 0
    /// The command ran and found what it looks for, for a cron job or CI step to act on: alerts (`alstats alerts`),
    /// a link that will not open (`alstats check`).
    static let found: Int32 = 3
    /// A usage error: a bad option or argument.
    static let usage: Int32 = 64
    /// Input data was invalid (an NDJSON line, a URL, a JSON argument).
    static let dataError: Int32 = 65
    /// An input file does not exist or cannot be opened.
    static let noInput: Int32 = 66
    /// A service the command needs stayed unreachable (`alstats push`: the collector).
    static let unavailable: Int32 = 69
    /// An I/O or database error.
    static let ioError: Int32 = 74
    /// Permission refused (`alstats push`: the collector refused the write key).
    static let noPermission: Int32 = 77
    /// A configuration error: `--database` names a backend this build does not have (EX_CONFIG).
    static let config: Int32 = 78
}

/// An error the CLI reports as one line on stderr, then exits with `status`.
///
/// Library errors are mapped to this at the command's edge: the message says what was wrong and what
/// to do, and no stack is dumped.
struct CLIFailure: Error, CustomStringConvertible {
    var status: Int32
    var message: String

    init(_ status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    var text = line
    if !text.hasSuffix("\n") { text += "\n" }
    FileHandle.standardError.write(Data(text.utf8))
}

extension ParsableCommand {
    /// Runs `body`; a ``CLIFailure`` becomes a message on stderr and its exit status.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CLIFailure {
            printError("alstats: \(failure.message)")
            throw ExitCode(failure.status)
        }
    }

    /// Runs `body`; a ``CLIFailure`` becomes a message on stderr and its exit status.
    func reportingFailuresAsync(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as CLIFailure {
            printError("alstats: \(failure.message)")
            throw ExitCode(failure.status)
        }
    }
}
