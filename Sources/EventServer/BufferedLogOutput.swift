import Dispatch
import MeasurementEvents
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// Where the server's log lines go (stderr by default), written off the request path: while it runs as a
/// `Service`, a line is appended to a buffer in memory (a lock and a copy, never a system call), and the
/// buffer is written every ``interval`` on a queue of its own. A request never waits for the log: when the
/// buffer holds ``maximumBufferedBytes`` (the output is slower than the requests), a line is dropped and
/// counted, and the count is written as a line of its own with the next write.
///
/// Before ``run()`` starts and after it ends, lines are written at once (start-up errors and the last lines
/// of a shutdown are never held back).
///
/// ```swift
/// let output = BufferedLogOutput()
/// LoggingSystem.bootstrap { ServerLogHandler(label: $0, format: .text, output: output) }
/// try await runUntilSignalled(app, logger: logger, logOutput: output)
/// ```
public final class BufferedLogOutput: Service, Sendable {
    /// The most bytes held between two writes; more lines are dropped and counted.
    public let maximumBufferedBytes: Int
    /// How long lines gather before they are written.
    public let interval: Duration
    private let fileDescriptor: Int32
    private let queue = DispatchQueue(label: "alstats-log")
    private let state = StateLock(State.direct)

    /// Whether lines are buffered (while ``run()`` runs) or written at once.
    private enum State {
        case direct
        case buffering(bytes: [UInt8], dropped: Int)
    }

    /// An output writing to `fileDescriptor` (2, stderr, by default).
    public init(
        fileDescriptor: Int32 = 2, maximumBufferedBytes: Int = 1 << 20, interval: Duration = .milliseconds(50)
    ) {
        self.fileDescriptor = fileDescriptor
        self.maximumBufferedBytes = max(1, maximumBufferedBytes)
        self.interval = interval
    }

    /// Writes one line (`line` plus a newline): buffered while running, else at once. Never waits for the
    /// output while running.
    public func write(_ line: String) {
        let direct = state.withLock { state -> Bool in
            guard case .buffering(var bytes, let dropped) = state else { return true }
            guard bytes.count + line.utf8.count < maximumBufferedBytes else {
                state = .buffering(bytes: bytes, dropped: dropped + 1)
                return false
            }
            state = .direct  // lets go of the array so that appending does not copy it
            bytes.append(contentsOf: line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            state = .buffering(bytes: bytes, dropped: dropped)
            return false
        }
        if direct { writeAll(Array(line.utf8) + [UInt8(ascii: "\n")]) }
    }

    /// Buffers lines and writes them every ``interval`` until graceful shutdown, then writes the rest and
    /// goes back to writing lines at once.
    public func run() async throws {
        state.withLock { $0 = .buffering(bytes: [], dropped: 0) }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await flush()
        }
        await flush(stopping: true)
    }

    /// Writes what is buffered (and the count of dropped lines) on the output's queue.
    public func flush() async {
        await flush(stopping: false)
    }

    private func flush(stopping: Bool) async {
        let (bytes, dropped) = state.withLock { state -> ([UInt8], Int) in
            guard case .buffering(let bytes, let dropped) = state else { return ([], 0) }
            state = stopping ? .direct : .buffering(bytes: [], dropped: 0)
            return (bytes, dropped)
        }
        let lines = "\(String(counting: dropped, "log line")) \(dropped == 1 ? "was" : "were")"
        let notice = "alstats: \(lines) dropped: the log output was slower than the requests\n"
        let text = dropped > 0 ? bytes + Array(notice.utf8) : bytes
        guard !text.isEmpty else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { [self] in
                writeAll(text)
                done.resume()
            }
        }
    }

    /// Writes every byte, retrying short writes and interruptions; gives up on another error (a closed
    /// output cannot be logged to).
    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
