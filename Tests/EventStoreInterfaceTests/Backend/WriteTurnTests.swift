import MeasurementEvents
import Testing

@testable import EventStoreInterface

/// A line of overlapping writes: the next write goes on only once the one before has opened its turn, with the ids
/// it holds; opening twice changes nothing.
struct WriteTurnTests {
    @Test func aWriteInLineWaitsForTheTurnBeforeItAndSeesItsIDs() async {
        let first = WriteTurn()
        let held: Set<EventID> = [EventID(uuidHigh: 1, low: 2)]
        let waiter = Task { () async -> Set<EventID> in
            await first.wait()
            return await first.heldIDs
        }
        while await first.waitingCount == 0 { await Task.yield() }
        await first.open(holding: held)
        #expect(await waiter.value == held)
    }

    @Test func anOpenTurnLetsLaterWritesThroughAndKeepsItsFirstIDs() async {
        let turn = WriteTurn()
        await turn.open(holding: [EventID(uuidHigh: 0, low: 1)])
        await turn.open(holding: [EventID(uuidHigh: 0, low: 2)])
        await turn.wait()  // returns at once
        #expect(await turn.heldIDs == [EventID(uuidHigh: 0, low: 1)])
    }

    @Test func openingAfterAFailureStillLetsTheLineGoOn() async {
        let turn = WriteTurn()
        await #expect(throws: StoreError.self) {
            try await turn.opening { () async throws(StoreError) -> Int in
                throw StoreError(.io, path: "test", "the write failed")
            }
        }
        await turn.wait()
        #expect(await turn.heldIDs.isEmpty)
    }
}
