import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStore

/// `alstats ingest` reads a named pipe as its writer writes (`mkfifo events; producer > events & alstats ingest
/// events`). Until 2026-11-27 the check that every input is readable opened the pipe and closed it again: that let the
/// writer's `open` return, left it without a reader (`EPIPE`, or `SIGPIPE` for a shell's producer, at its first
/// write), and the ingest then waited for another writer for ever.
struct IngestNamedPipeTests {
    @Test func aNamedPipeIsReadToItsEndAndItsWriterIsNotCutOff() throws {
        let folder = TemporaryDatabase()
        let events = sampleEvents(50)
        let bytes = Array((events.map(NDJSONCodec.line(for:)).joined(separator: "\n") + "\n").utf8)
        let pipe = folder.file("events.fifo")
        try #require(mkfifo(pipe, 0o600) == 0)
        let writer = PipeWriter(path: pipe, bytes: bytes)
        // Start reading once the writer waits in its `open`, as a producer started first does.
        for _ in 0..<500 where !writer.waitsToOpen { Thread.sleep(forTimeInterval: 0.01) }
        let store = try EventStore(path: folder.path)
        let ended = Locked(false)
        let unblocked = Locked(false)
        // Should the ingest wait for a writer that never comes, a writer of our own opens the pipe and closes it: the
        // ingest then reads the end of its input, and the test fails instead of hanging.
        Thread.detachNewThread {
            let deadline = ContinuousClock.now + .seconds(30)
            while !ended.withLock({ $0 }) && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
            while !ended.withLock({ $0 }) {
                let descriptor = open(pipe, O_WRONLY | O_NONBLOCK)
                if descriptor >= 0 {
                    unblocked.withLock { $0 = true }
                    close(descriptor)
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let summary = try store.ingest([IngestInput(path: pipe)], onInvalidLine: { _ in })
        ended.withLock { $0 = true }
        #expect(writer.result(within: .seconds(30)) == 0, "the writer's error number (32 is EPIPE: it lost its reader)")
        #expect(!unblocked.withLock { $0 }, "the ingest waited for a second writer")
        #expect(summary.stored == events.count && summary.invalid == 0)
        #expect(try store.count() == events.count)
    }
}

/// Writes `bytes` into a named pipe on a thread of its own, which blocks `SIGPIPE` so that a write without a reader
/// fails with `EPIPE` instead of ending the test process.
private final class PipeWriter: Sendable {
    private let thread = Locked<String?>(nil)
    private let outcome = Locked<Int32?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(path: String, bytes: [UInt8]) {
        Thread.detachNewThread { [self] in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")  // pid/task/tid
            thread.withLock { $0 = own }
            let descriptor = open(path, O_WRONLY)
            var error: Int32 = descriptor < 0 ? errno : 0
            var offset = 0
            while error == 0 && offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 { error = errno } else { offset += written }
            }
            if descriptor >= 0 { close(descriptor) }
            outcome.withLock { $0 = error }
            done.signal()
        }
    }

    /// Whether the thread waits in `open` for a reader (Linux names that wait in /proc).
    var waitsToOpen: Bool {
        guard let id = thread.withLock({ $0 }) else { return false }
        let wait = try? String(contentsOfFile: "/proc/\(id)/wchan", encoding: .utf8)
        return wait == "wait_for_partner"
    }

    /// The write's error number (0 when every byte was written), or `nil` when it has not ended within `limit`.
    func result(within limit: Duration) -> Int32? {
        let seconds = Double(limit.components.seconds)
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return outcome.withLock { $0 }
    }
}
