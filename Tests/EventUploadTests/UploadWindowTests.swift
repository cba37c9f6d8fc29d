import Foundation
import MeasurementEvents
import Testing

@testable import EventUpload

/// The upload's window on its own, without a network: how many requests go at once, which answers may be written
/// (only a contiguous run from the oldest batch), and where a batch's halves go when the collector splits it.
struct UploadWindowTests {
    static func batch(_ keys: Int64...) -> UploadBatch {
        UploadBatch(keys: keys, lines: keys.map { #"{"name":"al_nav_in","ts":\#($0)}"# })
    }

    static func receipt(for batch: UploadBatch) -> UploadWindow.Settlement {
        let body = Data(#"{"accepted":\#(batch.count),"duplicates":0,"rejected":0}"#.utf8)
        return .receipt(batch, UploadReceipt(body: body)!)
    }

    /// The first keys of the batches of `settlements`, in order.
    static func firstKeys(_ settlements: [UploadWindow.Settlement]) -> [Int64] {
        settlements.map { settlement in
            switch settlement {
            case .receipt(let batch, _), .dropped(let batch, _): batch.keys.first ?? -1
            }
        }
    }

    @Test func itSendsUpToItsCapacityAndReadsOneBatchAhead() {
        var window = UploadWindow(capacity: 2)
        #expect(window.canSend)
        _ = window.send()
        _ = window.send()
        #expect(!window.canSend)  // two in flight
        #expect(window.inFlight == 2)
        #expect(UploadWindow(capacity: 0).capacity == 1)
    }

    @Test func answersAreSettledOnlyInTheOrderTheBatchesWereRead() {
        var window = UploadWindow(capacity: 3)
        let (a, b, c) = (window.send(), window.send(), window.send())
        #expect(window.answer(c, .settled(Self.receipt(for: Self.batch(3)))).isEmpty)
        #expect(window.answer(b, .settled(Self.receipt(for: Self.batch(2)))).isEmpty)
        #expect(window.takeSettledRun().isEmpty)  // the oldest is still in flight
        // Three answered of four read: the window has room for a request, not for a fifth unsettled batch.
        _ = window.send()
        #expect(!window.canSend)
        _ = window.answer(a, .settled(Self.receipt(for: Self.batch(1))))
        #expect(Self.firstKeys(window.takeSettledRun()) == [1, 2, 3])
        #expect(!window.isSettled)
        #expect(window.canSend)
    }

    @Test func aSplitBatchIsReplacedByItsHalvesAndTheSecondGoesOnceTheFirstIsAnswered() throws {
        var window = UploadWindow(capacity: 2)
        let (a, b) = (window.send(), window.send())
        let (first, second) = Self.batch(1, 2, 3, 4).halves
        let sendNow = window.answer(a, .split(first, second))
        #expect(sendNow.map(\.batch.keys) == [[1, 2]])
        _ = window.answer(b, .settled(Self.receipt(for: Self.batch(5))))
        #expect(window.takeSettledRun().isEmpty)  // the halves stand where the batch stood, before b

        let firstHalf = try #require(sendNow.first)
        let thenSend = window.answer(firstHalf.number, .settled(Self.receipt(for: firstHalf.batch)))
        #expect(thenSend.map(\.batch.keys) == [[3, 4]])
        #expect(Self.firstKeys(window.takeSettledRun()) == [1])
        let secondHalf = try #require(thenSend.first)
        _ = window.answer(secondHalf.number, .settled(.dropped(secondHalf.batch, ["upload_rejected:too_large": 2])))
        #expect(Self.firstKeys(window.takeSettledRun()) == [3, 5])
        #expect(window.isSettled)
        #expect(window.inFlight == 0)
    }

    @Test func aHalfSplitAgainKeepsItsPlaceAndWhatFollowsIt() throws {
        var window = UploadWindow(capacity: 1)
        let a = window.send()
        let (first, second) = Self.batch(1, 2, 3, 4).halves
        let firstHalf = try #require(window.answer(a, .split(first, second)).first)
        let (quarter1, quarter2) = firstHalf.batch.halves
        let q1 = try #require(window.answer(firstHalf.number, .split(quarter1, quarter2)).first)
        let q2 = try #require(window.answer(q1.number, .settled(Self.receipt(for: q1.batch))).first)
        #expect(q2.batch.keys == [2])
        let last = try #require(window.answer(q2.number, .settled(Self.receipt(for: q2.batch))).first)
        #expect(last.batch.keys == [3, 4])  // the second half of the batch follows the second quarter
        _ = window.answer(last.number, .settled(Self.receipt(for: last.batch)))
        #expect(Self.firstKeys(window.takeSettledRun()) == [1, 2, 3])
        #expect(window.isSettled)
    }
}
