import Foundation
import MeasurementEvents

/// Writes into a named pipe (`mkfifo`) from a thread of its own, as a producer started before its reader does: the
/// thread opens the pipe at once (its `open` waits for a reader), then writes what it is given, in order, until
/// ``close()``. It blocks `SIGPIPE`, so that a write without a reader fails with `EPIPE` instead of ending the tests.
///
/// ```swift
/// let writer = NamedPipeWriter(path: pipe)
/// defer { writer.abandon() }  // a test that fails before reading leaves no thread waiting in `open`
/// writer.send(lines: [#"{"name":"al_nav_in"}"#])
/// writer.finish()
/// #expect(writer.result(within: .seconds(30)) == 0)
/// ```
public final class NamedPipeWriter: Sendable {
    private enum Command {
        case send([UInt8])
        case finish
    }

    private let path: String
    private let thread = Locked<String?>(nil)
    private let commands = Locked<[Command]>([])
    private let commandReady = DispatchSemaphore(value: 0)
    private let outcome = Locked<Int32?>(nil)
    private let ended = DispatchSemaphore(value: 0)

    /// Starts the thread, which opens the pipe at `path` for writing.
    public init(path: String) {
        self.path = path
        Thread.detachNewThread { [self] in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")  // pid/task/tid
            thread.withLock { $0 = own }
            let descriptor = open(path, O_WRONLY)
            var error: Int32 = descriptor < 0 ? errno : 0
            commands: while true {
                commandReady.wait()
                switch commands.withLock({ $0.removeFirst() }) {
                case .send(let bytes):
                    var offset = 0
                    while error == 0 && offset < bytes.count {
                        let written = bytes[offset...].withUnsafeBytes {
                            write(descriptor, $0.baseAddress, $0.count)
                        }
                        if written < 0 { error = errno } else { offset += written }
                    }
                case .finish:
                    break commands
                }
            }
            if descriptor >= 0 { close(descriptor) }
            outcome.withLock { $0 = error }
            ended.signal()
        }
    }

    /// Whether the thread still waits in `open` for a reader (Linux names that wait in /proc; elsewhere `false`).
    public var waitsToOpen: Bool {
        guard let id = thread.withLock({ $0 }) else { return false }
        let wait = try? String(contentsOfFile: "/proc/\(id)/wchan", encoding: .utf8)
        return wait == "wait_for_partner"
    }

    /// Waits, for at most `limit`, until the thread waits in `open` for a reader.
    public func awaitOpening(within limit: Duration = .seconds(5)) {
        let deadline = ContinuousClock.now + limit
        while !waitsToOpen && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// Writes `bytes` once what was given before is written.
    public func send(_ bytes: [UInt8]) { enqueue(.send(bytes)) }

    /// Writes `lines`, each ended by a line feed.
    public func send(lines: some Sequence<String>) { send(Array(lines.map { $0 + "\n" }.joined().utf8)) }

    /// Closes the pipe once everything given is written: its reader then reads the end of its input.
    public func finish() { enqueue(.finish) }

    /// Ends the thread however far it got: finishes, and, should it still wait in `open` for a reader (a test that
    /// failed before reading), opens the pipe for reading and closes it again, which lets it go on, fail its writes
    /// and end. For a `defer` of the test: it must come after the reading.
    public func abandon() {
        finish()
        if waitsToOpen {
            let reader = open(path, O_RDONLY | O_NONBLOCK)
            if reader >= 0 { close(reader) }
        }
    }

    private func enqueue(_ command: Command) {
        commands.withLock { $0.append(command) }
        commandReady.signal()
    }

    /// The writes' error number (0 when every byte was written; 32, `EPIPE`, when the reader went away), once the
    /// pipe is closed, or `nil` when that did not happen within `limit`.
    public func result(within limit: Duration) -> Int32? {
        guard ended.wait(timeout: .now() + Double(limit.components.seconds)) == .success else { return nil }
        return outcome.withLock { $0 }
    }
}
