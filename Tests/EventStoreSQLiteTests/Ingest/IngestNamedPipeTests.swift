import EventIngest
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite

/// `alstats ingest` reads a named pipe as its writer writes (`mkfifo events; producer > events & alstats ingest
/// events`). Until 2026-11-27 the check that every input is readable opened the pipe and closed it again: that let the
/// writer's `open` return, left it without a reader (`EPIPE`, or `SIGPIPE` for a shell's producer, at its first
/// write), and the ingest then waited for another writer for ever.
struct IngestNamedPipeTests {
    @Test func aNamedPipeIsReadToItsEndAndItsWriterIsNotCutOff() throws {
        let folder = TemporaryDatabase()
        let events = sampleEvents(50)
        let pipe = folder.file("events.fifo")
        try #require(mkfifo(pipe, 0o600) == 0)
        let writer = NamedPipeWriter(path: pipe)
        defer { writer.abandon() }
        writer.send(lines: events.map(NDJSONCodec.line(for:)))
        writer.finish()
        writer.awaitOpening()  // the ingest starts once the writer waits for a reader, as a producer started first does
        let store = try SQLiteEventStore(path: folder.path)
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
        let summary: IngestSummary
        do {
            defer { ended.withLock { $0 = true } }
            summary = try store.ingest([IngestInput(path: pipe)], onInvalidLine: { _ in })
        }
        #expect(writer.result(within: .seconds(30)) == 0, "the writer's error number (32 is EPIPE: it lost its reader)")
        #expect(!unblocked.withLock { $0 }, "the ingest waited for a second writer")
        #expect(summary.stored == events.count && summary.invalid == 0)
        #expect(try store.count() == events.count)
    }
}
