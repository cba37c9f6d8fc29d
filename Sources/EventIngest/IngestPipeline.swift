import Foundation
import MeasurementEvents

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and decodes NDJSON on a thread of its own while the caller writes, handing over batches of a backend's own
/// rows (``IngestRows``) through a small bounded queue, so that parsing and writing overlap on two cores. The rows'
/// per-batch work (``IngestRows/seal()``) is shared: the reader does it, for its own batch and then for the queued
/// ones, whenever the queue is full instead of waiting; the consumer does it for the batches it gets unsealed.
///
/// Batches arrive in input order with their invalid lines, so errors are reported in order by the
/// consumer. The reader's thread starts at ``start()``, not in the initializer; ``cancel()`` stops the reader
/// early (when the writer failed); ``next()`` returns `nil` once everything was read.
///
/// ```swift
/// let pipeline = IngestPipeline(inputs: inputs, codec: codec, batchSize: 1_024) { DecodedEvents(capacity: 1_024) }
/// pipeline.start()
/// while let batch = pipeline.next() { write(batch) }
/// pipeline.join()
/// ```
package final class IngestPipeline<Rows: IngestRows>: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is guarded by `condition`.

    /// Where the reader is, from its start to the end of its thread.
    private enum Phase {
        /// Created; ``IngestPipeline/start()`` has not been called.
        case unstarted
        /// The reader reads and queues batches; `waiter` is a consumer waiting in ``nextBatch()`` for the next one.
        case reading(waiter: CheckedContinuation<Batch?, Never>?)
        /// The consumer cancelled: the reader stops at its next hand-over and queues nothing more.
        case cancelled(waiter: CheckedContinuation<Batch?, Never>?)
        /// The reader has queued its last batch (or stopped when cancelled); its thread is ending.
        case finished
        /// The reader's thread has ended.
        case ended

        /// Whether the reader queues no more batches: what is queued is all there is.
        var isFinished: Bool {
            switch self {
            case .unstarted, .reading, .cancelled: false
            case .finished, .ended: true
            }
        }

        /// Whether the reader's thread has ended.
        var hasEnded: Bool {
            if case .ended = self { true } else { false }
        }
    }

    /// The events of a run of lines, as the backend's rows, and the invalid lines among them, in input order.
    package struct Batch: Sendable {
        /// The events of the batch's valid lines.
        package var rows: Rows
        package var errors: [IngestError] = []
        package var lines = 0
        /// The inputs' bytes through the batch's last line (all of them with the last batch).
        package var bytes = 0
        package var failure: IngestError?
        /// Events rejected over a limit (also in `errors`) and events stored with a value cut to the length
        /// limit (``DropReason/valueTruncated``), by reason: ingest adds them to the completeness table.
        package var losses: [DropReason: Int] = [:]
        /// The fields whose names are near misses of catalogue names (stored as read).
        package var nearMisses = FieldNameWarnings()
    }

    /// A queued batch. Its `batch` is `nil` while the reader seals it outside the lock (``sealQueued(at:)``).
    private struct Slot {
        var batch: Batch?
        var sealed: Bool
        /// The batch's place in the input, which finds the slot again once it was sealed.
        let number: Int

        /// Whether the reader may take the batch to seal it.
        var awaitsSealing: Bool { batch != nil && !sealed }
    }

    /// Guards the properties below. A condition variable, not a `Mutex`: the reader sleeps while the queue is full,
    /// a consumer in ``next()`` while it is empty, and ``join()`` until the reader's thread has ended.
    private let condition = NSCondition()
    private var phase = Phase.unstarted
    private var queue: [Slot] = []
    /// The number of the next batch queued.
    private var nextNumber = 0
    /// Consumed rows handed back so that the reader, not the writer, pays for freeing them.
    private var consumed: [Rows] = []
    /// The batches queued at most: three (not four) kept a 10M wide ingest's peak 1.5 MB lower at the same rate.
    private let capacity = 3
    private let inputs: [IngestInput]
    private let codec: NDJSONCodec
    private let batchSize: Int
    private let makeRows: @Sendable () -> Rows

    /// A pipeline that reads `inputs` once started into the rows `makeRows` makes (one per batch of `batchSize`
    /// lines): a line in the flat shape read in place (``NDJSONCodec/scan(_:into:)``) when the rows take it so, any
    /// other decoded with `codec`. Nothing is redacted here: the rows or the backend's write do it.
    package init(
        inputs: [IngestInput], codec: NDJSONCodec, batchSize: Int, makeRows: @escaping @Sendable () -> Rows
    ) {
        self.inputs = inputs
        self.codec = codec
        self.batchSize = batchSize
        self.makeRows = makeRows
    }

    /// Starts the reader's thread. Call it once, before ``next()`` or ``nextBatch()``.
    package func start() {
        condition.lock()
        guard case .unstarted = phase else {
            condition.unlock()
            preconditionFailure("IngestPipeline.start() called twice, or after cancel()")
        }
        phase = .reading(waiter: nil)
        condition.unlock()
        Thread.startNamed("alstats-ingest") { [self] in
            read(inputs: inputs, codec: codec, batchSize: batchSize, makeRows: makeRows)
            condition.lock()
            phase = .ended
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The next batch, waiting for it on the caller's thread; `nil` when all input was read. For a caller on a
    /// thread of its own (the SQLite ingest); an async caller uses ``nextBatch()``.
    package func next() -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        if case .unstarted = phase { preconditionFailure("IngestPipeline.next() before start()") }
        while (queue.isEmpty && !phase.isFinished) || headIsBeingSealed { condition.wait() }
        guard let batch = queue.first?.batch else { return nil }
        queue.removeFirst()
        condition.broadcast()
        return batch
    }

    /// ``next()`` for an async caller, which waits without blocking its thread: a thread of the cooperative pool
    /// blocked here could not run the writes' continuations meanwhile (the pool has one thread per core).
    package func nextBatch() async -> Batch? {
        await withCheckedContinuation { take(resuming: $0) }
    }

    /// Resumes `continuation` with the next batch, or `nil` when all input was read, or leaves it to the reader when
    /// none is queued yet (to be resumed by the next ``send(_:)`` or ``finish()``).
    private func take(resuming continuation: CheckedContinuation<Batch?, Never>) {
        condition.lock()
        if queue.isEmpty || headIsBeingSealed {
            switch phase {
            case .reading:
                phase = .reading(waiter: continuation)
                condition.unlock()
                return
            case .cancelled:
                phase = .cancelled(waiter: continuation)
                condition.unlock()
                return
            case .unstarted: preconditionFailure("IngestPipeline.nextBatch() before start()")
            case .finished, .ended: break
            }
        }
        let batch = queue.isEmpty ? nil : queue.removeFirst().batch
        condition.broadcast()
        condition.unlock()
        continuation.resume(returning: batch)
    }

    /// Hands written rows back to the reader thread, which releases them (the writer is the bottleneck).
    package func recycle(_ rows: consuming Rows) {
        condition.lock()
        consumed.append(rows)
        condition.unlock()
    }

    /// Stops the reader and waits for its thread to end.
    package func cancel() {
        condition.lock()
        switch phase {
        case .unstarted: phase = .ended  // nothing to read, no thread to wait for
        case .reading(let waiter): phase = .cancelled(waiter: waiter)
        case .cancelled, .finished, .ended: break
        }
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
        join()
    }

    /// Waits for the reader's thread to end; calling it again returns at once.
    package func join() {
        condition.lock()
        defer { condition.unlock() }
        while !phase.hasEnded { condition.wait() }
    }

    /// Queues `batch`; `false` when cancelled. While the queue is full the consumer has batches to write, so the reader
    /// does their per-batch work rather than wait: its own batch's, then the newest queued batch's not yet sealed, the
    /// head's last (a consumer that comes for it meanwhile waits for it, no longer than sealing it would take). A
    /// batch sent while there is room goes unsealed, and the consumer seals it. The two threads so share that work as
    /// their speeds demand, and neither waits while the other has work it could take: sealing before each hand-over
    /// whenever something was queued (as before) left the writer waiting for batches being sealed and the reader for
    /// room, both idle a sixth of a 1M-line ingest.
    private func send(_ unsealed: Batch) -> Bool {
        var batch = unsealed
        var sealed = false
        condition.lock()
        while queue.count >= capacity, case .reading = phase {
            if !sealed {
                condition.unlock()
                batch.rows.seal()
                sealed = true
                condition.lock()
            } else if let index = queue.indices.last(where: { queue[$0].awaitsSealing }) {
                sealQueued(at: index)
            } else {
                condition.wait()
            }
        }
        guard case .reading = phase else {  // cancelled
            condition.unlock()
            return false
        }
        queue.append(Slot(batch: batch, sealed: sealed, number: nextNumber))
        nextNumber += 1
        let handOver = takeHeadForWaiter()
        condition.broadcast()
        let garbage = consumed
        consumed.removeAll()
        condition.unlock()
        if let handOver { handOver.waiter.resume(returning: handOver.batch) }
        _ = consume garbage  // released here, on the reader thread
        return true
    }

    /// Seals the queued batch at `index` outside the lock, which is held on entry and on return, and puts it back in
    /// its slot (gone if the consumer cancelled meanwhile).
    private func sealQueued(at index: Int) {
        let number = queue[index].number
        guard var batch = queue[index].batch else { return }
        queue[index].batch = nil
        condition.unlock()
        batch.rows.seal()
        condition.lock()
        if let place = queue.firstIndex(where: { $0.number == number }) {
            queue[place].batch = batch
            queue[place].sealed = true
        }
        let handOver = takeHeadForWaiter()
        condition.broadcast()
        guard let handOver else { return }
        condition.unlock()
        handOver.waiter.resume(returning: handOver.batch)
        condition.lock()
    }

    /// Whether the batch at the head of the queue is being sealed by the reader: the consumer waits for it.
    private var headIsBeingSealed: Bool { queue.first.map { $0.batch == nil } ?? false }

    /// The consumer waiting in ``nextBatch()`` and the head batch, taken off the queue for it, when both are there;
    /// to be resumed once the lock is released.
    private func takeHeadForWaiter() -> (waiter: CheckedContinuation<Batch?, Never>, batch: Batch)? {
        guard case .reading(let waiter?) = phase, let batch = queue.first?.batch else { return nil }
        phase = .reading(waiter: nil)
        queue.removeFirst()
        return (waiter, batch)
    }

    private func finish() {
        condition.lock()
        var waiting: CheckedContinuation<Batch?, Never>?
        switch phase {
        case .reading(let waiter), .cancelled(let waiter): waiting = waiter
        case .unstarted, .finished, .ended: break
        }
        phase = .finished
        condition.broadcast()
        condition.unlock()
        waiting?.resume(returning: nil)
    }

    private struct Stop: Error {}

    private func read(
        inputs: [IngestInput], codec: NDJSONCodec, batchSize: Int, makeRows: @Sendable () -> Rows
    ) {
        defer { finish() }
        func newBatch() -> Batch { Batch(rows: makeRows()) }
        var batch = newBatch()
        let takesFlatLines = batch.rows.takesFlatLines
        var flat = FlatLine()
        var memo = NearMissMemo()
        var totalBytes = 0
        for input in inputs {
            let descriptor: Int32
            do throws(IngestError) {
                descriptor = try input.openInput()
            } catch {
                batch.failure = error
                _ = send(batch)
                return
            }
            defer { if input.path != "-" { close(descriptor) } }
            var lineNumber = 0
            let bytesBefore = totalBytes
            var lineEnd = bytesBefore
            let reader = LineReader(descriptor: descriptor)
            do {
                try reader.forEachLine { line, bytesRead in
                    lineNumber += 1
                    totalBytes = bytesBefore + bytesRead
                    // `bytesRead` runs up to a chunk ahead of the lines; a batch's bytes end at its last line.
                    if case .text(let bytes) = line {
                        lineEnd = min(lineEnd + bytes.count + 1, totalBytes)
                    } else {
                        lineEnd = totalBytes
                    }
                    let place = IngestError(.invalidLine, file: input.label, line: lineNumber, reason: "")
                    IngestPipeline.add(
                        line, at: place, of: reader, codec: codec, to: &batch,
                        flat: &flat, memo: &memo, takesFlatLines: takesFlatLines)
                    if batch.lines >= batchSize {
                        batch.bytes = lineEnd
                        guard send(batch) else { throw Stop() }
                        batch = newBatch()
                    }
                }
            } catch let error as IngestError {
                var failed = error
                failed.file = input.label
                batch.failure = failed
                _ = send(batch)
                return
            } catch {
                return  // cancelled
            }
        }
        batch.bytes = totalBytes
        _ = send(batch)
    }

    /// Adds one line to `batch`: its event (a cut value counted), or its error at `place` (a line refused over a
    /// limit counted by reason), into the batch's rows, read in place (into `flat`) when they take lines so
    /// (`takesFlatLines`, asked of the rows once per pipeline), field names checked for near misses with `memo`.
    /// Blank lines are skipped.
    private static func add(
        _ line: LineReader.Line, at place: IngestError, of reader: LineReader, codec: NDJSONCodec,
        to batch: inout Batch, flat: inout FlatLine, memo: inout NearMissMemo, takesFlatLines: Bool
    ) {
        var error = place
        switch line {
        case .tooLong:
            batch.lines += 1
            error.reason = "line is longer than \(reader.maximumLineBytes) bytes"
            batch.errors.append(error)
        case .text(let bytes):
            if isBlank(bytes) { return }
            batch.lines += 1
            if takesFlatLines, codec.scan(trimmingEnd(bytes), into: &flat), batch.rows.append(flat) {
                batch.nearMisses.check(flat.fields, file: place.file, line: place.line ?? 0, memo: &memo)
                return
            }
            do throws(NDJSONLineError) {
                var truncated = 0
                let event = try codec.decode(utf8: bytes, truncatedValues: &truncated)
                batch.nearMisses.check(event.fields, file: place.file, line: place.line ?? 0, memo: &memo)
                batch.rows.append(event)
                if truncated > 0 { batch.losses[.valueTruncated, default: 0] += 1 }
            } catch let refusal {
                if let reason = refusal.dropReason { batch.losses[reason, default: 0] += 1 }
                error.reason = refusal.reason
                batch.errors.append(error)
            }
        }
    }

    /// `bytes` without the white space at their end, which a decoder skips: a file with CRLF line ends has a `\r`
    /// at the end of every line.
    private static func trimmingEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0D { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[..<end])
    }

    private static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte != 0x20 && byte != 0x09 && byte != 0x0D { return false }
        return true
    }
}
