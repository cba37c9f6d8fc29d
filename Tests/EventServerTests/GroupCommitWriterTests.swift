import EventServer
import EventStore
import Foundation
import MeasurementEvents
import Testing

@Suite struct GroupCommitWriterTests {
    /// Submits `batches` in order before the writer runs, so that one transaction holds them all (as many as
    /// the writer's group limit lets), then runs it.
    static func commitTogether(
        _ batches: [[MeasurementEvent]], writer: GroupCommitWriter
    ) async throws -> [Result<Int, GroupCommitWriter.SubmitError>] {
        var tasks: [Task<Result<Int, GroupCommitWriter.SubmitError>, Never>] = []
        var total = 0
        for batch in batches {
            tasks.append(
                Task { () -> Result<Int, GroupCommitWriter.SubmitError> in
                    do throws(GroupCommitWriter.SubmitError) {
                        return .success(try await writer.submit(batch, losses: ["too_large": 1]))
                    } catch {
                        return .failure(error)
                    }
                })
            total += batch.count
            let queued = total
            try await waitUntil { writer.queuedEventCount == queued }
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await writer.run() }
            var results: [Result<Int, GroupCommitWriter.SubmitError>] = []
            for task in tasks { results.append(await task.value) }
            writer.close()
            try await group.waitForAll()
            return results
        }
    }

    @Test func requestsSharingATransactionEachGetTheirOwnCount() async throws {
        let fixture = ServerFixture()
        let writer = GroupCommitWriter(store: try EventStore(path: fixture.path))
        let shared = sampleLines(5, prefix: "shared")
        let results = try await Self.commitTogether(
            [shared, shared + sampleLines(3, prefix: "b"), sampleLines(2, prefix: "c")], writer: writer)
        #expect(results.map { try? $0.get() } == [5, 3, 2])
        #expect(try fixture.storedEvents().count == 10)
        #expect(try fixture.completeness()["rejected"]?["too_large"] == 3)
        #expect(writer.isHealthy == false)  // closed
    }

    /// A group smaller than the minimum waits for more requests (up to the gather delay): the first request
    /// stays queued, uncommitted, until a second one brings the group to the minimum, then both commit at once.
    @Test func aSmallGroupWaitsForMoreRequestsUntilItReachesTheMinimum() async throws {
        let fixture = ServerFixture()
        let writer = GroupCommitWriter(
            store: try EventStore(path: fixture.path), minimumGroupEvents: 10, gatherDelay: .seconds(60))
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await writer.run() }
            let first = Task { try await writer.submit(sampleLines(5, prefix: "first"), losses: [:]) }
            try await waitUntil { writer.queuedEventCount == 5 }
            try await Task.sleep(for: .milliseconds(200))
            #expect(writer.queuedEventCount == 5)
            #expect(try fixture.storedEvents().isEmpty)
            let second = try await writer.submit(sampleLines(5, prefix: "second"), losses: [:])
            #expect(try await first.value == 5)
            #expect(second == 5)
            writer.close()
            try await group.waitForAll()
        }
        #expect(try fixture.storedEvents().count == 10)
        #expect(ContinuousClock.now - started < .seconds(30))  // not after the gather delay
    }

    /// A lone request is committed once its gather delay has passed.
    @Test func aLoneSmallRequestIsCommittedAfterTheGatherDelay() async throws {
        let fixture = ServerFixture()
        let writer = GroupCommitWriter(
            store: try EventStore(path: fixture.path), minimumGroupEvents: 1_000, gatherDelay: .milliseconds(50))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await writer.run() }
            #expect(try await writer.submit(sampleLines(3), losses: [:]) == 3)
            writer.close()
            try await group.waitForAll()
        }
        #expect(try fixture.storedEvents().count == 3)
    }

    @Test func requestsBeyondTheGroupLimitCommitInLaterTransactionsWithTheirOwnCounts() async throws {
        let fixture = ServerFixture()
        let writer = GroupCommitWriter(
            store: try EventStore(path: fixture.path), maximumQueuedEvents: 100, maximumGroupEvents: 6)
        let shared = sampleLines(5, prefix: "shared")
        let results = try await Self.commitTogether(
            [shared, shared + sampleLines(3, prefix: "b"), sampleLines(2, prefix: "c"), shared], writer: writer)
        #expect(results.map { try? $0.get() } == [5, 3, 2, 0])
        #expect(try fixture.storedEvents().count == 10)
        #expect(try fixture.completeness()["rejected"]?["too_large"] == 4)
    }

    @Test func aFailedCommitFailsEveryRequestInItAndStoresNothing() async throws {
        let fixture = ServerFixture()
        _ = try EventStore(path: fixture.path)  // created and migrated
        let pages = (try FileManager.default.attributesOfItem(atPath: fixture.path)[.size] as? Int ?? 0) / 4_096
        let store = try EventStore(path: fixture.path, options: .init(maximumPageCount: pages + 1))
        let writer = GroupCommitWriter(store: store)
        let big = { (prefix: String) in
            (0..<500).map {
                MeasurementEvent(
                    id: EventID("\(prefix)-\($0)"), name: "x", fields: ["v": String(repeating: "z", count: 2_000)],
                    timestamp: 1)
            }
        }
        let results = try await Self.commitTogether([big("a"), big("b")], writer: writer)
        for result in results {
            guard case .failure(.storeFailed(let message)) = result else {
                Issue.record("expected a store failure, got \(result)")
                continue
            }
            #expect(message.contains(fixture.path))
            #expect(GroupCommitWriter.SubmitError.storeFailed(message).answer.status == .internalServerError)
        }
        #expect(try fixture.storedEvents().isEmpty)
        #expect(try fixture.completeness()["rejected"]?["too_large"] == nil)
    }
}
