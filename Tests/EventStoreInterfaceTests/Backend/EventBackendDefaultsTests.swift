import MeasurementEvents
import Synchronization
import Testing

@testable import EventStoreInterface

/// What a backend gets from the protocol when it keeps the defaults: events prepared as they are and written in
/// their order, a write in line that waits for the one before and opens its own turn even when it fails, and no
/// upkeep.
struct EventBackendDefaultsTests {
    /// A backend that keeps every default: it records the batches its one write is given, and fails when told to.
    final class RecordingBackend: EventBackend {
        let written = StateLock<[[String]]>([])
        let failing = Mutex(false)
        var location: String { "memory" }
        var schemaVersion: Int { 0 }

        func writeBatches(_ batches: [[MeasurementEvent]], losses: [DropReason: Int]) throws(StoreError) -> [Int] {
            if failing.withLock({ $0 }) { throw StoreError(.io, path: location, "told to fail") }
            written.withLock { $0 += batches.map { $0.map(\.name) } }
            return batches.map(\.count)
        }
        func write(_ events: [MeasurementEvent]) throws(StoreError) -> Int {
            try writeBatches([events], losses: [:])[0]
        }
        func recordLosses(_ losses: [DropReason: Int]) {}
        func completeness() -> [String: [String: Int]] { [:] }
        func count() -> Int { written.withLock { $0.joined().count } }
        func rebuildRollups() {}
        func forEachEvent(since: Int64, until: Int64, _ body: (MeasurementEvent) throws -> Void) {}
        func close() {}
    }

    static func events(_ names: String...) -> [MeasurementEvent] {
        names.map { MeasurementEvent(name: $0, fields: [:], timestamp: 1_763_683_200_000) }
    }

    @Test func preparedEventsAreWrittenAsTheyCameInTheirOrder() async throws {
        let backend = RecordingBackend()
        let first = backend.prepare(Self.events("a", "b"))
        let second = backend.prepare(Self.events("c"))
        #expect(first.count == 2 && second.events.map(\.name) == ["c"])
        #expect(try await backend.writePrepared([first, second], losses: [:]) == [2, 1])
        #expect(backend.written.withLock { $0 } == [["a", "b"], ["c"]])
    }

    @Test func aWriteInLineWaitsForTheOneBeforeAndOpensItsTurnEvenWhenItFails() async throws {
        let backend = RecordingBackend()
        let (before, mine) = (WriteTurn(), WriteTurn())
        let write = Task {
            try await backend.writeBatches([Self.events("late")], losses: [:], after: before, claimed: mine)
        }
        while await before.waitingCount == 0 { await Task.yield() }
        #expect(backend.written.withLock { $0 }.isEmpty)
        await before.open()
        #expect(try await write.value == [1])
        await mine.wait()

        backend.failing.withLock { $0 = true }
        let failed = WriteTurn()
        await #expect(throws: StoreError.self) {
            try await backend.writeBatches([Self.events("x")], losses: [:], after: mine, claimed: failed)
        }
        await failed.wait()  // opened although the write failed: the line goes on
    }

    @Test func aBackendWithoutUpkeepHasNothingToDo() async throws {
        #expect(try await RecordingBackend().upkeep() == .done)
    }
}
